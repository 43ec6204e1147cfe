// @ts-check
'use strict';
// The fleet on Docker's swarm mode, as `npm run fleet` and `npm run test:fleet` run it: the engine,
// the swarm, the images, the stack and its readiness. What `up` creates is written to a state file
// (in the engine's cache folder) so that `down` removes exactly that: the stack and its volumes,
// the swarm if `up` made this engine a swarm, the engine if `up` started it. The readiness checks
// (replicas, /ready, the RabbitMQ cluster, the balancer) are readiness.cjs's, exported here too so
// that the fleet's commands require one module.

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { ensureEnvFile, randomSecret } = require('../lib/env-file.cjs');
const {
  CACHE,
  chooseImages: chooseImagesOf,
  exec,
  Failure,
  MINUTE,
  ROOT,
  sleep,
  startEngine,
  stopEngine,
} = require('../containers/engine.cjs');
const { STANDIN_NODE_IMAGE, STANDINS, imagesOf, repositoryOf } = require('../containers/standins.cjs');
const readiness = require('./readiness.cjs');
const { STACK_FILE, fleetStack, readCompose } = require('./stack-file.cjs');

const { REAL_NODE_IMAGE } = readiness;
/** Secrets only the fleet needs, generated into .env when missing (as npm start does its own). */
const FLEET_SECRETS = ['RABBITMQ_ERLANG_COOKIE'];

/** @param {string} stack */
const stateFile = (stack) => path.join(CACHE, `fleet-${stack}.json`);

function readState(stack) {
  try {
    return JSON.parse(fs.readFileSync(stateFile(stack), 'utf8'));
  } catch {
    return {};
  }
}

function writeState(stack, state) {
  fs.mkdirSync(CACHE, { recursive: true });
  fs.writeFileSync(stateFile(stack), JSON.stringify(state, null, 2));
}

/** .env's values (npm start's secrets and the fleet's, generated when missing), the environment winning. */
function fleetEnvironment(rootDir = ROOT) {
  const { env, file } = ensureEnvFile(rootDir);
  const missing = FLEET_SECRETS.filter((key) => !env[key]);
  if (missing.length > 0) {
    const text = fs.readFileSync(file, 'utf8');
    for (const key of missing) env[key] = randomSecret();
    fs.appendFileSync(file, `${text.endsWith('\n') ? '' : '\n'}${missing.map((k) => `${k}=${env[k]}`).join('\n')}\n`);
  }
  return { ...env, ...definedOnly(process.env) };
}

function definedOnly(env) {
  return Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined));
}

/** `standin` or `real` for this stack (engine.cjs's chooseImages over the images it would run). */
function chooseImages(stack) {
  return chooseImagesOf([REAL_NODE_IMAGE, ...namedImages(stack)]);
}

/** The images the stack runs that this repository does not build. */
function namedImages(stack) {
  return [
    ...new Set(
      Object.values(stack.services)
        .map((s) => String(s.image))
        .filter((i) => !i.includes('restgate-')),
    ),
  ];
}

/** The stack file's override that runs the stand-in images. */
function standinStackOverride(stack) {
  const services = {};
  for (const [name, spec] of Object.entries(stack.services)) {
    const image = String(spec.image);
    if (image.includes('restgate-')) continue;
    const standin = STANDINS[repositoryOf(image)];
    if (!standin)
      throw new Failure(`no stand-in image for ${name} (${image}): add one to scripts/containers/standins.cjs and provision.sh`);
    services[name] = { image: standin.image };
  }
  return { version: '3.8', services };
}

/**
 * Makes sure an engine answers and is a swarm manager. Returns what was done, for `down`:
 * { enginePid (ours, or null), swarmCreated }.
 */
async function ensureSwarm(log) {
  await exec('bash', [path.join(ROOT, 'scripts', 'containers', 'provision.sh'), 'tools'], { inherit: true, timeoutMs: 60 * MINUTE });
  const engine = await startEngine(log);
  try {
    const state = (await exec('docker', ['info', '--format', '{{.Swarm.LocalNodeState}}'], { timeoutMs: 30_000 })).trim();
    let swarmCreated = false;
    if (state === 'inactive') {
      await exec('docker', ['swarm', 'init', '--advertise-addr', '127.0.0.1'], { timeoutMs: 2 * MINUTE });
      swarmCreated = true;
      log('made this engine a single-node swarm (left again by `down`)');
    } else if (state === 'active') {
      log('using the swarm this engine is already part of; it stays');
    } else {
      throw new Failure(`the engine's swarm state is ${state}: expected active or inactive`);
    }
    return { enginePid: engine.pid, swarmCreated };
  } catch (err) {
    // An engine this call started is not left running by its failure.
    if (engine.pid) await stopEngine(engine.pid, log);
    throw err;
  }
}

/**
 * Builds the services' images (restgate-<service>:latest, as compose names them) with compose,
 * on the stand-in Node image when `images` is `standin`. The build cache makes an unchanged
 * service cost seconds.
 */
async function buildImages({ env, images, work, log }) {
  // The services' images are built FROM the stand-in Node image: it must be in the engine first.
  if (images === 'standin') await importStandins();
  const compose = readCompose();
  const built = imagesOf({ services: compose.services }).built;
  const args = ['compose', '--project-name', 'restgate', '--project-directory', ROOT, '-f', path.join(ROOT, 'docker-compose.yml')];
  if (images === 'standin') {
    const override = path.join(work, 'compose.build.yml');
    const services = Object.fromEntries(built.map((s) => [s, { build: { args: { NODE_IMAGE: STANDIN_NODE_IMAGE } } }]));
    fs.writeFileSync(override, JSON.stringify({ services }));
    args.push('-f', override);
  }
  log(`building ${built.join(', ')}`);
  await exec('docker', [...args, 'build', ...built], { inherit: true, timeoutMs: 40 * MINUTE, env: { ...process.env, ...env } });
}

/** The stand-in images, into the running engine (each made only when missing or out of date). */
async function importStandins() {
  await exec('bash', [path.join(ROOT, 'scripts', 'containers', 'provision.sh'), 'images'], { inherit: true, timeoutMs: 30 * MINUTE });
}

/**
 * `docker stack deploy`, with the stand-ins' override when `images` is `standin`, and `overrides`
 * (compose-format objects merged over the stack file, in order) after it.
 */
async function deploy({ stackName, env, images, work, log, overrides = /** @type {object[]} */ ([]) }) {
  const stack = fleetStack();
  const args = ['stack', 'deploy', '--resolve-image', 'never', '--prune', '-c', STACK_FILE];
  if (images === 'standin') {
    await importStandins();
    const override = path.join(work, 'stack.standins.yml');
    fs.writeFileSync(override, JSON.stringify(standinStackOverride(stack)));
    args.push('-c', override);
  }
  overrides.forEach((override, i) => {
    const file = path.join(work, `stack.override-${i}.yml`);
    fs.writeFileSync(file, JSON.stringify({ version: '3.8', ...override }));
    args.push('-c', file);
  });
  log(`deploying the stack ${stackName}`);
  await exec('docker', [...args, stackName], { timeoutMs: 5 * MINUTE, env: { ...process.env, ...env }, cwd: path.dirname(STACK_FILE) });
}

/** Removes the stack and its volumes, waiting until its networks are gone. */
async function removeStack(stackName, log) {
  await exec('docker', ['stack', 'rm', stackName], { timeoutMs: 2 * MINUTE }).catch((e) => log(`stack rm: ${e.message}`));
  const deadline = Date.now() + 2 * MINUTE;
  for (;;) {
    const left = (
      await exec('docker', ['ps', '-aq', '--filter', `label=com.docker.stack.namespace=${stackName}`], { timeoutMs: 30_000 })
    ).trim();
    const nets = (
      await exec('docker', ['network', 'ls', '-q', '--filter', `label=com.docker.stack.namespace=${stackName}`], { timeoutMs: 30_000 })
    ).trim();
    if (!left && !nets) break;
    // `stack rm` gives up on a network a task still held at that moment: once the containers are
    // gone, remove it again.
    if (!left) await exec('docker', ['network', 'rm', ...nets.split('\n')], { timeoutMs: 30_000 }).catch(() => undefined);
    if (Date.now() > deadline) {
      log('the stack was still stopping after two minutes');
      break;
    }
    await sleep(1000);
  }
  const volumes = (
    await exec('docker', ['volume', 'ls', '-q', '--filter', `label=com.docker.stack.namespace=${stackName}`], { timeoutMs: 30_000 })
  )
    .trim()
    .split('\n')
    .filter(Boolean);
  if (volumes.length)
    await exec('docker', ['volume', 'rm', '-f', ...volumes], { timeoutMs: MINUTE }).catch((e) => log(`volume rm: ${e.message}`));
  log(`removed the stack ${stackName} and its ${volumes.length} volume(s)`);
}

/** Leaves the swarm and stops the engine when `up` created them. */
async function undoEngine({ enginePid, swarmCreated }, log) {
  if (swarmCreated) {
    await exec('docker', ['swarm', 'leave', '--force'], { timeoutMs: 2 * MINUTE }).catch((e) => log(`swarm leave: ${e.message}`));
    log('left the swarm this fleet created');
  }
  if (enginePid) await stopEngine(enginePid, log);
}

function workDir() {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'restgate-fleet-'));
}

module.exports = {
  ...readiness,
  buildImages,
  chooseImages,
  deploy,
  ensureSwarm,
  fleetEnvironment,
  readState,
  removeStack,
  undoEngine,
  workDir,
  writeState,
  namedImages,
};
