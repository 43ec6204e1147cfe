#!/usr/bin/env node
'use strict';
// `npm run test:containers`: the real docker-compose.yml on a real engine. Provisions what is
// missing (provision.sh: engine packages, compose v2, buildx, stand-in images), starts dockerd when
// none answers (and stops it at the end, by its pid), brings the stack up with `--build --wait`
// under a project name of its own, runs the black-box tests in test/containers against the
// published ports, then takes the stack down with its volumes. Exits non-zero at the first failure.
//
// RESTGATE_CONTAINER_IMAGES: `auto` (default: the real images when every one is already on the
// engine, else the stand-ins), `standin`, or `real` (compose pulls them: needs a registry).

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { ensureInstalled, runBin } = require('../lib/install.cjs');
const { SECRET_KEYS, randomSecret } = require('../lib/env-file.cjs');
const { chooseImages, exec, Failure, MINUTE, portFree, seconds, startEngine, stopEngine, timedSteps } = require('./engine.cjs');
const { STANDIN_NODE_IMAGE, describeStandins, imagesOf, standinOverride } = require('./standins.cjs');

const ROOT = path.resolve(__dirname, '..', '..');
const PROJECT = 'restgate-ct';
const REAL_NODE_IMAGE = 'node:26-trixie-slim';
// The host ports the compose file publishes; nothing else is ever bound on the host.
const PUBLISHED = [
  { host: '0.0.0.0', port: 9000, what: 'the gateway' },
  { host: '127.0.0.1', port: 8025, what: "Mailpit's page" },
];

const log = (msg) => process.stdout.write(`[containers] ${msg}\n`);

async function checkPortsFree() {
  const busy = [];
  for (const { host, port, what } of PUBLISHED) if (!(await portFree(host, port))) busy.push(`${host}:${port} (${what})`);
  if (busy.length)
    throw new Failure(
      `the compose file publishes ${busy.join(' and ')}, which something on this machine already uses: stop it and run again`,
    );
}

async function main() {
  const started = Date.now();
  const { step, timings } = timedSteps(log);

  await checkPortsFree();
  await step('install and build the workspace', () => ensureInstalled({ build: true, log }));
  await step('provision the engine, compose, buildx and the stand-ins’ parts', () =>
    exec('bash', [path.join(__dirname, 'provision.sh'), 'tools'], { inherit: true, timeoutMs: 60 * MINUTE }),
  );

  const engine = await step('start the engine', () => startEngine(log));
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'restgate-ct-'));
  let composeArgs = null;
  const cleanUp = async () => {
    if (composeArgs) {
      await exec('docker', [...composeArgs, 'down', '--volumes', '--remove-orphans', '--timeout', '20'], { timeoutMs: 3 * MINUTE }).catch(
        (e) => log(`compose down failed: ${e.message}`),
      );
    }
    fs.rmSync(work, { recursive: true, force: true });
    await stopEngine(engine.pid, log);
  };
  const onSignal = (signal) => {
    log(`${signal}: taking the stack down`);
    cleanUp().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  try {
    // Secrets for this run only (every one npm start generates), in a file that never leaves the
    // temporary folder.
    const secrets = Object.fromEntries(SECRET_KEYS.map((key) => [key, randomSecret()]));
    const envFile = path.join(work, 'env');
    // The webhook receiver of test/containers listens on this host: a private address to the
    // containers. Its admin is created with the master key, as an operator creates the first one.
    const settings = { ...secrets, WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', ADMIN_SIGN_UP: 'master' };
    fs.writeFileSync(
      envFile,
      Object.entries(settings)
        .map(([k, v]) => `${k}=${v}\n`)
        .join(''),
      { mode: 0o600 },
    );
    const base = [
      'compose',
      '--project-name',
      PROJECT,
      '--project-directory',
      ROOT,
      '--env-file',
      envFile,
      '-f',
      path.join(ROOT, 'docker-compose.yml'),
    ];
    const model = JSON.parse(await exec('docker', [...base, 'config', '--format', 'json'], { timeoutMs: MINUTE }));

    const images = await chooseImages([REAL_NODE_IMAGE, ...imagesOf(model).named.map((n) => n.image)]);
    composeArgs = [...base];
    if (images === 'standin') {
      await step('stand-in images', () =>
        exec('bash', [path.join(__dirname, 'provision.sh'), 'images'], { inherit: true, timeoutMs: 30 * MINUTE }),
      );
      const override = path.join(work, 'compose.standins.yml');
      fs.writeFileSync(override, JSON.stringify(standinOverride(model), null, 2));
      composeArgs.push('-f', override);
      log(`images: STAND-INS (no registry needed); the Node services build on ${STANDIN_NODE_IMAGE} instead of ${REAL_NODE_IMAGE}`);
      for (const line of describeStandins(model)) log(`  ${line}`);
    } else {
      log(`images: the REAL images (${[REAL_NODE_IMAGE, ...imagesOf(model).named.map((n) => n.image)].join(', ')})`);
    }

    await step('docker compose up --build --wait', () =>
      exec('docker', [...composeArgs, 'up', '--build', '--wait', '--wait-timeout', '600', '--quiet-pull'], {
        inherit: true,
        timeoutMs: 40 * MINUTE,
      }),
    );

    const env = {
      ...process.env,
      RESTGATE_CT_GATEWAY_URL: 'http://127.0.0.1:9000',
      RESTGATE_CT_MAILPIT_URL: 'http://127.0.0.1:8025',
      RESTGATE_CT_MASTER_KEY: secrets.MASTER_KEY,
      RESTGATE_CT_COMPOSE: JSON.stringify(composeArgs),
      RESTGATE_CT_IMAGES: images,
    };
    const code = await step('black-box tests (test/containers)', () =>
      runBin('jest', ['--ci', '--runInBand', '--config', path.join(ROOT, 'test', 'containers', 'jest.config.js')], { env }),
    );
    if (code !== 0) {
      const logs = await exec('docker', [...composeArgs, 'logs', '--no-color', '--tail', '30'], { timeoutMs: MINUTE }).catch(
        (e) => e.message,
      );
      process.stdout.write(`\n--- the stack's last log lines ---\n${logs}\n`);
      throw new Failure(`the container tests failed (jest exit code ${code})`);
    }
    log(`PASSED with ${images === 'standin' ? 'stand-in' : 'real'} images in ${seconds(Date.now() - started)} (${timings.join('; ')})`);
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
