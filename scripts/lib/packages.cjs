'use strict';
// Debian packages the project installs for itself (PostgreSQL, RabbitMQ, Redis, Chromium, the
// container engine's parts): one place, one way. Node built-ins only: this runs before `npm install`.
//
// Rules, each from a failure seen on a fresh machine:
// - One `apt-get update` and one `apt-get install` for everything a run is missing, before
//   anything starts in parallel: two apt-get processes at once make one of them fail on the
//   package database's lock.
// - Installs by this project run one at a time on a machine: calls in one process queue, other
//   processes wait for a lock file. A call that then finds everything installed (someone got
//   there first) does nothing more; one that finds nothing missing waits for nothing.
// - When another process holds the package database (another stack starting, the system's own
//   updates), we wait for it, bounded, saying who holds it; then fail with the command to run by hand.
// - Nothing is started by an install: there is no init system here, and a broker a package
//   started by itself would listen on every interface. A policy-rc.d that refuses is put in place
//   for the install (one that was already there stays); the lock above keeps its lifetime one
//   install's.
//
// CLI: `node scripts/lib/packages.cjs install NAME…` (the container stage's provisioning uses it).

const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const pidLock = require('./pid-lock.cjs');

const POLICY_RC_D = '/usr/sbin/policy-rc.d';
const INSTALL_LOCK = path.join(os.tmpdir(), 'restgate-packages.lock');
const LOCK_WAIT_MS = Number(process.env.RESTGATE_APT_LOCK_WAIT_SECONDS || 600) * 1000;
const LOCK_RETRY_MS = 3000;
const UPDATE_TIMEOUT_MS = 10 * 60 * 1000;
const INSTALL_TIMEOUT_MS = 20 * 60 * 1000;

/** @param {string} msg */
const defaultLog = (msg) => {
  process.stderr.write(`[restgate] ${msg}\n`);
};
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function onPath(cmd) {
  return (process.env.PATH || '').split(path.delimiter).some((dir) => {
    if (!dir) return false;
    try {
      fs.accessSync(path.join(dir, cmd), fs.constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

const isRoot = () => typeof process.getuid === 'function' && process.getuid() === 0;

/** True when this process may install Debian packages: root, with apt-get. */
const canInstallPackages = () => isRoot() && onPath('apt-get');

/** True when dpkg has the package fully installed (false where there is no dpkg at all). */
function isInstalled(name) {
  const result = spawnSync('dpkg-query', ['-W', '-f=${Status}', name], { encoding: 'utf8' });
  return result.status === 0 && result.stdout.trim() === 'install ok installed';
}

function byHand(names) {
  return `apt-get update && apt-get install -y --no-install-recommends ${names.join(' ')}`;
}

// apt-get's own words when another process has the lock, e.g.
// "E: Could not get lock /var/lib/apt/lists/lock. It is held by process 2929 (apt-get)".
function lockHolder(output) {
  if (!/Could not get lock|Unable to acquire|Unable to lock/.test(output)) return null;
  const held = /Could not get lock (\S+?)\.? It is held by process (\d+)(?: \(([^)]+)\))?/.exec(output);
  if (!held) return 'another process';
  const [, file, pid, name] = held;
  return `process ${pid}${name ? ` (${name})` : ''} on ${file}`;
}

function runApt(args, timeoutMs) {
  return new Promise((resolve, reject) => {
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    const child = spawn('apt-get', args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const keep = (chunk) => {
      output = (output + chunk).slice(-16384);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? 128, signal, output });
    });
  });
}

// Runs one apt-get command, waiting while another process holds the package database.
async function aptWithLockWait(args, { timeoutMs, log, names, deadline }) {
  let reported = null;
  for (;;) {
    const { code, signal, output } = await runApt(args, timeoutMs);
    if (code === 0) return;
    const holder = lockHolder(output);
    if (!holder) {
      const how = signal ? `signal ${signal}` : `exit code ${code}`;
      const tail = output.trimEnd().split('\n').slice(-20).join('\n');
      throw new Error(`\`apt-get ${args.join(' ')}\` failed (${how})\n${tail}\nTo install by hand: ${byHand(names)}`);
    }
    if (Date.now() + LOCK_RETRY_MS > deadline) {
      throw new Error(
        `the package database stayed locked by ${holder} for ${Math.round(LOCK_WAIT_MS / 1000)} s; ` +
          `when it is free, run: ${byHand(names)}`,
      );
    }
    if (reported !== holder) {
      log(`waiting for the package database: it is locked by ${holder} (up to ${Math.round((deadline - Date.now()) / 1000)} s more)`);
      reported = holder;
    }
    await sleep(LOCK_RETRY_MS);
  }
}

// Refuses every service start for the length of an install (see the rules above).
function withoutServiceStarts(fn) {
  let own = false;
  try {
    fs.writeFileSync(POLICY_RC_D, '#!/bin/sh\n# restgate: no service starts during an install\nexit 101\n', { flag: 'wx', mode: 0o755 });
    own = true;
  } catch {
    // one is there already: it decides
  }
  return fn().finally(() => {
    if (own) fs.rmSync(POLICY_RC_D, { force: true });
  });
}

let queue = Promise.resolve();

/**
 * Installs the Debian packages among `names` that are not installed yet, all in one
 * `apt-get update` + `apt-get install`. Resolves with the names it installed ([] when none was
 * missing). Throws, with the command to run by hand, when we are not root, there is no apt-get,
 * or apt-get fails.
 */
function ensurePackages(names, { log = defaultLog } = {}) {
  const wanted = [...new Set(names)];
  const result = queue.then(() => installMissing(wanted, log));
  queue = result.catch(() => {});
  return result;
}

async function installMissing(wanted, log) {
  if (!wanted.some((name) => !isInstalled(name))) return [];
  if (!canInstallPackages()) {
    const missing = wanted.filter((name) => !isInstalled(name));
    throw new Error(`missing Debian packages: ${missing.join(', ')}. Install them as root: ${byHand(missing)}`);
  }
  const deadline = Date.now() + LOCK_WAIT_MS;
  let reported = false;
  while (!pidLock.tryLock(INSTALL_LOCK)) {
    if (Date.now() + LOCK_RETRY_MS > deadline) {
      throw new Error(
        `another run of this project (pid ${pidLock.lockHolder(INSTALL_LOCK)}) kept installing for ${LOCK_WAIT_MS / 1000} s; when it is done, run: ${byHand(wanted)}`,
      );
    }
    if (!reported) log(`waiting for another run of this project (pid ${pidLock.lockHolder(INSTALL_LOCK)}) to finish installing packages`);
    reported = true;
    await sleep(LOCK_RETRY_MS);
  }
  try {
    return await installLocked(wanted, log, deadline);
  } finally {
    pidLock.unlock(INSTALL_LOCK);
  }
}

async function installLocked(wanted, log, deadline) {
  // Whoever held the lock before us may have installed these.
  const missing = wanted.filter((name) => !isInstalled(name));
  if (missing.length === 0) return [];
  const started = Date.now();
  log(`installing ${missing.join(', ')}: one \`apt-get update\` and one \`apt-get install\` (once per machine)`);
  await withoutServiceStarts(async () => {
    await aptWithLockWait(['update', '-qq'], { timeoutMs: UPDATE_TIMEOUT_MS, log, names: missing, deadline });
    await aptWithLockWait(['install', '-y', '-qq', '--no-install-recommends', ...missing], {
      timeoutMs: INSTALL_TIMEOUT_MS,
      log,
      names: missing,
      deadline: Date.now() + LOCK_WAIT_MS,
    });
  });
  const still = missing.filter((name) => !isInstalled(name));
  if (still.length) throw new Error(`apt-get reported success but ${still.join(', ')} is still not installed; run: ${byHand(still)}`);
  log(`installed ${missing.join(', ')} in ${Math.round((Date.now() - started) / 1000)} s`);
  return missing;
}

/**
 * What `find` finds, after installing `pkg` when it finds nothing at first. Throws when the install
 * fails (prefixed with `alternative`, which says what else would do) or leaves `what` missing.
 * @template T
 * @param {() => T | null} find
 * @param {{ pkg: string, what: string, alternative?: string, log?: (msg: string) => void }} options
 * @returns {Promise<T>}
 */
async function findOrInstall(find, { pkg, what, alternative, log = defaultLog }) {
  const found = find();
  if (found) return found;
  try {
    await ensurePackages([pkg], { log });
  } catch (err) {
    if (!alternative) throw err;
    throw new Error(`${alternative}. ${/** @type {Error} */ (err).message}`);
  }
  const installed = find();
  if (!installed) throw new Error(`${what} is still not found after installing ${what === pkg ? 'it' : pkg}`);
  return installed;
}

module.exports = { canInstallPackages, ensurePackages, findOrInstall, isInstalled, lockHolder };

if (require.main === module) {
  const [command, ...names] = process.argv.slice(2);
  if (command !== 'install' || names.length === 0) {
    process.stderr.write('usage: node scripts/lib/packages.cjs install NAME…\n');
    process.exit(2);
  }
  ensurePackages(names).then(
    () => process.exit(0),
    (err) => {
      defaultLog(`error: ${err.message}`);
      process.exit(1);
    },
  );
}
