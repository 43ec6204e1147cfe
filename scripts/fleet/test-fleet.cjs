#!/usr/bin/env node
// @ts-check
'use strict';
// `npm run test:fleet`: the swarm stack (deploy/swarm/stack.yml) on a real engine in swarm mode,
// tested black-box through its load balancer under a steady mixed load (test/fleet, one scenario
// file after another: rolling update, SIGKILLs, limits across gateways, ended sessions, mail across
// broker loss, scaling). Provisions what is missing (as the container stage), starts dockerd when
// none answers, makes it a single-node swarm when it is not one, builds the images, deploys under
// a stack name of its own with secrets made for this run, and at the end removes the stack and its
// volumes, leaves the swarm it created and stops the engine it started. Traffic goes to 127.0.0.1
// and to the containers the test started, only.

const path = require('node:path');
const fs = require('node:fs');
const { ensureInstalled, runBin } = require('../lib/install.cjs');
const { SECRET_KEYS, randomSecret } = require('../lib/env-file.cjs');
const { CACHE, Failure, portFree, seconds, timedSteps } = require('../containers/engine.cjs');
const { STANDIN_NODE_IMAGE } = require('../containers/standins.cjs');
const fleet = require('./swarm.cjs');
const { fleetStack } = require('./stack-file.cjs');

const ROOT = path.resolve(__dirname, '..', '..');
const STACK = 'restgate-ft';
const log = (msg) => process.stdout.write(`[fleet] ${msg}\n`);

// The load comes from one client address (this machine, through the balancer): the per-address
// ceilings are raised for it. Scenario 3 redeploys the gateway on low ones to test them.
const HIGH_LIMITS = {
  RATE_LIMIT_ALL: '1000000/60',
  RATE_LIMIT_CREDENTIALS: '1000000/60',
  RATE_LIMIT_SIGN_UP: '1000000/60',
  RATE_LIMIT_REFRESH: '1000000/60',
  RATE_LIMIT_PASSWORD_RESETS: '1000000/60',
  // Scenario 7 holds 200 event streams from this one address.
  REALTIME_MAX_STREAMS_PER_ADDRESS: '1000',
};

async function main() {
  const started = Date.now();
  const { step, timings } = timedSteps(log);
  if (!(await portFree('0.0.0.0', 9000)))
    throw new Failure('the fleet publishes port 9000, which something on this machine already uses: stop it and run again');
  // Built: the scenarios' support imports @restgate/shared's subpaths, which resolve to shared/dist.
  await step('install and build the workspace', () => ensureInstalled({ build: true, log }));
  const engine = await step('the engine and the swarm', () => fleet.ensureSwarm(log));
  const work = fleet.workDir();
  let deployed = false;
  const cleanUp = async () => {
    // RESTGATE_FLEET_KEEP=1 leaves the stack (and the engine) up to look into a failure.
    if (process.env.RESTGATE_FLEET_KEEP === '1') return log(`kept the stack ${STACK}: docker stack rm ${STACK} removes it`);
    if (deployed) await fleet.removeStack(STACK, log);
    fs.rmSync(work, { recursive: true, force: true });
    await fleet.undoEngine(engine, log);
  };
  const onSignal = (signal) => {
    log(`${signal}: removing the stack`);
    cleanUp().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    // Secrets for this run only: every one npm start generates, and the brokers' cookie.
    const env = Object.fromEntries([...SECRET_KEYS, 'RABBITMQ_ERLANG_COOKIE'].map((key) => [key, randomSecret()]));
    const images = await fleet.chooseImages(fleetStack());
    log(`images: ${images === 'standin' ? 'stand-ins (no registry needed)' : 'the real ones'}`);
    await step('build the images', () => fleet.buildImages({ env, images, work, log }));
    // A stack left by an interrupted run would keep its volumes, and so the brokers' old users.
    await fleet.removeStack(STACK, log);
    deployed = true;
    await step('deploy', () =>
      fleet.deploy({ stackName: STACK, env, images, work, log, overrides: [{ services: { gateway: { environment: HIGH_LIMITS } } }] }),
    );
    await step('every replica ready', () => fleet.waitReady({ stackName: STACK, images, log }));
    const testEnv = {
      RESTGATE_FLEET_URL: 'http://127.0.0.1:9000',
      RESTGATE_FLEET_MASTER_KEY: env.MASTER_KEY,
      RESTGATE_FLEET_STACK: STACK,
      RESTGATE_FLEET_PROBE_IMAGE: images === 'real' ? 'node:26-trixie-slim' : STANDIN_NODE_IMAGE,
    };
    if (process.env.RESTGATE_FLEET_KEEP === '1') {
      // What the scenarios need to run again against the kept stack (`set -a; . <file>; npx jest
      // --config test/fleet/jest.config.js`), for its owner only, in the engine's cache folder.
      const file = path.join(CACHE, `fleet-${STACK}.test-env`);
      fs.writeFileSync(
        file,
        Object.entries(testEnv)
          .map(([k, v]) => `${k}=${v}\n`)
          .join(''),
        { mode: 0o600 },
      );
      log(`the scenarios' environment: ${file}`);
    }
    const code = await step('the scenarios (test/fleet)', () =>
      runBin('jest', ['--ci', '--runInBand', '--config', path.join(ROOT, 'test', 'fleet', 'jest.config.js'), ...process.argv.slice(2)], {
        env: { ...process.env, ...testEnv },
      }),
    );
    if (code !== 0) throw new Failure(`the fleet scenarios failed (jest exit code ${code})`);
    log(`PASSED in ${seconds(Date.now() - started)} (${timings.join('; ')})`);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await cleanUp();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    log(`FAILED: ${err instanceof Failure ? err.message : err.stack}`);
    process.exit(1);
  },
);
