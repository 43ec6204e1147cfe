// @ts-check
'use strict';
// PostgreSQL for FerretDB: a cluster of our own in <dataDir>/postgres, on loopback, installed from
// Debian when missing. Node built-ins only: this runs before `npm install`.

const fs = require('node:fs');
const path = require('node:path');
const { findOrInstall } = require('./packages.cjs');
const { LOOPBACK, freePort } = require('./ports.cjs');
const { isExecutable, run, serverHandle, startChild, which, withoutPrefixed } = require('./processes.cjs');

/** @typedef {import('./processes.cjs').Log} Log */

const PG_USER = 'ferretdb';
// The database initdb creates; FerretDB keeps each MongoDB database in a schema of its own there.
const PG_DB = 'postgres';
const GIN_SIBLINGS_SQL = path.join(__dirname, 'postgres-gin-siblings.sql');

/**
 * The folder of initdb and postgres. Debian puts the server binaries in
 * /usr/lib/postgresql/<major>/bin, not on the PATH.
 * @returns {string | null}
 */
function findPostgresBin() {
  const onPath = which('initdb');
  // The real folder: a link on the PATH (/usr/local/bin/initdb) may not have postgres beside it.
  if (onPath && isExecutable(path.join(path.dirname(fs.realpathSync(onPath)), 'postgres'))) return path.dirname(fs.realpathSync(onPath));
  const base = '/usr/lib/postgresql';
  const majors = fs.existsSync(base)
    ? fs
        .readdirSync(base)
        .filter((v) => /^\d+$/.test(v))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  for (const major of majors) {
    const dir = path.join(base, major, 'bin');
    if (isExecutable(path.join(dir, 'initdb')) && isExecutable(path.join(dir, 'postgres'))) return dir;
  }
  return null;
}

/**
 * PostgreSQL refuses to run as root. As root we run it as the `postgres` account Debian's package
 * creates, which must then be able to reach its folder: the folders above it get o+x (enter, not list).
 * @returns {{ uid: number, gid: number } | null}
 */
function postgresAccount() {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return null;
  const line = fs
    .readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('postgres:'));
  if (!line) throw new Error('running as root and there is no `postgres` account to run PostgreSQL as');
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

/** @param {string} dir @param {{ uid: number, gid: number }} account */
function letAccountIn(dir, account) {
  for (let d = path.dirname(dir); d !== path.dirname(d); d = path.dirname(d)) {
    const { mode } = fs.statSync(d);
    if ((mode & 0o001) === 0) fs.chmodSync(d, mode | 0o001);
  }
  fs.chownSync(dir, account.uid, account.gid);
}

/**
 * Starts the cluster in <dataDir>/postgres (created on first use) on a free port.
 * @param {string} dataDir @param {Log} log
 * @returns {Promise<{ url: string, stop: () => Promise<void> }>}
 */
async function ensurePostgres(dataDir, log) {
  const binDir = await findOrInstall(findPostgresBin, { pkg: 'postgresql', what: 'initdb', log });
  const account = postgresAccount();
  const clusterDir = path.join(dataDir, 'postgres');
  const fresh = !fs.existsSync(path.join(clusterDir, 'PG_VERSION'));
  fs.mkdirSync(clusterDir, { recursive: true, mode: 0o700 });
  if (account) letAccountIn(clusterDir, account);
  const asAccount = account ? { uid: account.uid, gid: account.gid } : {};
  // Only the server's own variables are cleared; HOME etc. stay (initdb reads no config from them).
  const env = { ...withoutPrefixed(process.env, 'PG'), LC_ALL: 'C' };
  if (fresh) {
    const started = Date.now();
    // trust on loopback: the cluster listens on 127.0.0.1 only, like FerretDB in front of it,
    // which itself takes no credentials here; nothing else has a socket to it.
    await run(path.join(binDir, 'initdb'), ['-D', clusterDir, '-U', PG_USER, '--auth=trust', '--encoding=UTF8', '--no-sync'], {
      env,
      cwd: '/',
      timeoutMs: 120_000,
      ...asAccount,
    });
    log(`created a PostgreSQL cluster in ${clusterDir} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
  const port = await freePort();
  log(`starting PostgreSQL (${path.basename(path.dirname(binDir))}) on ${LOOPBACK}:${port} (data ${clusterDir})`);
  const child = startChild({
    name: 'postgres',
    cmd: path.join(binDir, 'postgres'),
    args: [
      '-D',
      clusterDir,
      '-p',
      String(port),
      '-c',
      `listen_addresses=${LOOPBACK}`,
      // TCP only: no socket file in /var/run/postgresql (which may not exist or not be ours).
      '-c',
      'unix_socket_directories=',
      // A development database: a crash may lose the last commits, never consistency.
      '-c',
      'synchronous_commit=off',
      '-c',
      'max_connections=200',
      // FerretDB's queries are prepared statements whose field names are parameters; a generic
      // plan (which PostgreSQL switches to after five runs) cannot match them to an index.
      '-c',
      'plan_cache_mode=force_custom_plan',
    ],
    env,
    logFile: path.join(dataDir, 'postgres.log'),
    log,
    ...asAccount,
  });
  const handle = await serverHandle(child, port, 'postgres');
  const urlOf = (/** @type {string} */ db) => `postgres://${PG_USER}@${LOOPBACK}:${port}/${db}`;
  /** @param {string[]} args */
  const psql = (args) =>
    run(path.join(binDir, 'psql'), ['-h', LOOPBACK, '-p', String(port), '-U', PG_USER, '-X', '-q', '-v', 'ON_ERROR_STOP=1', ...args], {
      env,
      cwd: '/',
      timeoutMs: 60_000,
    });
  try {
    await psql(['-d', PG_DB, '-f', GIN_SIBLINGS_SQL]);
    log("PostgreSQL: GIN siblings of FerretDB's indexes installed");
  } catch (err) {
    await handle.stop();
    throw err;
  }
  return { url: urlOf(PG_DB), stop: handle.stop };
}

module.exports = { ensurePostgres, findPostgresBin };
