#!/usr/bin/env node
// @ts-check
'use strict';
// `npm run fleet -- up|down|status|stack`: the fleet (deploy/swarm/stack.yml) on this machine's
// Docker engine in swarm mode, the way `npm run test:fleet` runs it.
//   up      installs what is missing, starts an engine if none answers, makes it a swarm if it is
//           not one, builds the images, deploys, and waits until every replica is ready. Secrets
//           come from .env (missing ones are generated into it, as npm start does).
//   down    removes the stack and its volumes, then leaves the swarm and stops the engine if `up`
//           created them.
//   status  each service's running/desired replicas.
//   stack   rewrites deploy/swarm/stack.yml from docker-compose.yml.

const fs = require('node:fs');
const { ensureInstalled } = require('../lib/install.cjs');
const { Failure } = require('../containers/engine.cjs');
const fleet = require('./swarm.cjs');
const { STACK_FILE, writeStack } = require('./stack-file.cjs');

const STACK = process.env.RESTGATE_FLEET_STACK || 'restgate';
const log = (msg) => process.stdout.write(`[fleet] ${msg}\n`);

async function up() {
  await ensureInstalled({ build: false, log });
  // The stack file follows compose (a resource generated before npm install left it behind).
  if (writeStack()) log(`rewrote ${STACK_FILE} from docker-compose.yml`);
  const env = fleet.fleetEnvironment();
  const previous = fleet.readState(STACK);
  const engine = await fleet.ensureSwarm(log);
  // What an earlier `up` created stays ours to undo.
  fleet.writeState(STACK, {
    enginePid: engine.enginePid ?? previous.enginePid ?? null,
    swarmCreated: engine.swarmCreated || !!previous.swarmCreated,
  });
  const work = fleet.workDir();
  let deployed = false;
  try {
    const images = await fleet.chooseImages(require('./stack-file.cjs').fleetStack());
    log(`images: ${images === 'standin' ? 'stand-ins (no registry needed)' : 'the real ones'}`);
    await fleet.buildImages({ env, images, work, log });
    deployed = true;
    await fleet.deploy({ stackName: STACK, env, images, work, log });
    await fleet.waitReady({ stackName: STACK, images, log });
  } catch (err) {
    // A failed `up` takes back what it started: its stack, and the swarm and engine it created.
    log('up failed: removing what it started');
    if (deployed) await fleet.removeStack(STACK, log);
    await fleet.undoEngine(engine, log);
    fleet.writeState(STACK, {
      enginePid: engine.enginePid ? null : (previous.enginePid ?? null),
      swarmCreated: !engine.swarmCreated && !!previous.swarmCreated,
    });
    throw err;
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
  log('the fleet listens on http://127.0.0.1:9000 (npm run fleet -- status; npm run fleet -- down)');
}

async function down() {
  await fleet.removeStack(STACK, log);
  await fleet.undoEngine(fleet.readState(STACK), log);
  fs.rmSync(require('node:path').join(require('../containers/engine.cjs').CACHE, `fleet-${STACK}.json`), { force: true });
}

async function status() {
  const replicas = await fleet.serviceReplicas(STACK);
  if (Object.keys(replicas).length === 0) return log(`no stack ${STACK} is deployed`);
  for (const [name, { running, desired }] of Object.entries(replicas)) log(`${name.padEnd(12)} ${running}/${desired}`);
}

const commands = {
  up,
  down,
  status,
  stack: async () => log(writeStack() ? `wrote ${STACK_FILE}` : `${STACK_FILE} is up to date`),
};
const command = commands[process.argv[2] ?? ''];
if (!command) {
  process.stderr.write('usage: npm run fleet -- up|down|status|stack\n');
  process.exit(2);
}
command().then(
  () => process.exit(0),
  (err) => {
    log(`FAILED: ${err instanceof Failure ? err.message : err.stack}`);
    process.exit(1);
  },
);
