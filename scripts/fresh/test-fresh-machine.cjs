#!/usr/bin/env node
'use strict';
// `npm run test:fresh`: the README's first command on a pristine machine. A container started from
// a minimal Debian root file system (debootstrap, no registry) with only what a new machine of our
// kind has: Node.js and npm, Go (both mounted read-only from this machine), Python 3, git, curl and
// apt-get reaching Debian's packages. No per-user cache comes along (no FerretDB binary, no Go
// module cache, no npm cache), so building FerretDB is part of what is proven. In it,
// scripts/fresh/first-run.sh clones the repository twice, runs `npm start` in both at once, the
// README's "Try it" against one, then Ctrl-C.
//
// Provisions what is missing (provision.sh: the engine's packages, the root file system), starts
// dockerd when none answers (and stops it at the end), removes its container whatever happens.
// RESTGATE_FRESH_REF: the commit the clones check out (default: what this checkout has checked out).

const { randomBytes } = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { exec, Failure, MINUTE, ROOT, seconds, startEngine, stopEngine, timedSteps } = require('../containers/engine.cjs');

const IMAGE = 'restgate-fresh/machine:bookworm';
const PROVISION = path.join(ROOT, 'scripts', 'containers', 'provision.sh');
const HOST_CA = '/etc/ssl/certs/ca-certificates.crt';
const CONTAINER_CA = '/usr/local/share/restgate/host-ca.crt';

const log = (msg) => process.stdout.write(`[fresh] ${msg}\n`);

// The toolchains a new machine of our kind comes with, from this machine, read-only.
async function toolchainMounts() {
  const npmDir = path.join((await exec('npm', ['root', '-g'], { timeoutMs: MINUTE })).trim(), 'npm');
  const goRoot = (await exec('go', ['env', 'GOROOT'], { timeoutMs: MINUTE })).trim();
  for (const [what, dir] of [
    ['npm', npmDir],
    ['Go', goRoot],
  ])
    if (!fs.existsSync(dir)) throw new Failure(`${what} was not found at ${dir}`);
  const mounts = [
    [fs.realpathSync(process.execPath), '/usr/local/bin/node'],
    [npmDir, '/usr/local/lib/node_modules/npm'],
    [goRoot, '/usr/local/go'],
    [ROOT, '/src'],
  ];
  // npm and Go reach their registries through whatever this machine trusts (a proxy in between
  // may sign with its own authority).
  if (fs.existsSync(HOST_CA)) mounts.push([HOST_CA, CONTAINER_CA]);
  return mounts.flatMap(([from, to]) => ['--volume', `${from}:${to}:ro`]);
}

async function main() {
  const started = Date.now();
  const { step, timings } = timedSteps(log);

  await step('provision the engine and the pristine root file system', () =>
    exec('bash', [PROVISION, 'fresh-rootfs'], { inherit: true, timeoutMs: 30 * MINUTE }),
  );
  const engine = await step('start the engine', () => startEngine(log));
  const name = `restgate-fresh-${randomBytes(4).toString('hex')}`;
  let created = false;
  const removeContainer = () =>
    created
      ? exec('docker', ['rm', '--force', '--volumes', name], { timeoutMs: 2 * MINUTE }).catch((e) => log(`docker rm failed: ${e.message}`))
      : null;
  const onSignal = (signal) => {
    log(`${signal}: removing the pristine machine`);
    Promise.resolve(removeContainer())
      .then(() => stopEngine(engine.pid, log))
      .finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    await step('the pristine machine image', () => exec('bash', [PROVISION, 'fresh-image'], { inherit: true, timeoutMs: 10 * MINUTE }));
    const env = [`NODE_EXTRA_CA_CERTS=${CONTAINER_CA}`, `SSL_CERT_FILE=${CONTAINER_CA}`, 'TERM=dumb'];
    if (process.env.RESTGATE_FRESH_REF) env.push(`RESTGATE_FRESH_REF=${process.env.RESTGATE_FRESH_REF}`);
    const mounts = await toolchainMounts();
    await exec(
      'docker',
      ['run', '--detach', '--init', '--name', name, ...mounts, ...env.flatMap((e) => ['--env', e]), IMAGE, 'sleep', 'infinity'],
      {
        timeoutMs: 2 * MINUTE,
      },
    );
    created = true;
    await step('first run on the pristine machine (scripts/fresh/first-run.sh)', () =>
      exec('docker', ['exec', name, 'bash', '/src/scripts/fresh/first-run.sh'], { inherit: true, timeoutMs: 60 * MINUTE }),
    );
    log(`PASSED in ${seconds(Date.now() - started)} (${timings.join('; ')})`);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await removeContainer();
    await stopEngine(engine.pid, log);
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    log(`FAILED: ${err instanceof Failure ? err.message : err.stack}`);
    process.exit(1);
  },
);
