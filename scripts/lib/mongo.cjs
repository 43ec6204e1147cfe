// @ts-check
'use strict';
// The MongoDB-compatible server: MONGODB_URL when set, else a `mongod` on the PATH, else FerretDB
// (built once and patched, see ferretdb-build.cjs) over PostgreSQL or SQLite. Node built-ins only: this runs
// before `npm install`.
//
// One dataDir per concurrently running stack: two FerretDB processes must not share a SQLite folder.

const fs = require('node:fs');
const path = require('node:path');
const { pathToFileURL } = require('node:url');
const { FERRET_VERSION, ensureFerretBinary, ferretCacheDir } = require('./ferretdb-build.cjs');
const { ensurePostgres } = require('./postgres.cjs');
const { LOOPBACK, freePort } = require('./ports.cjs');
const { defaultLog, fromEnvironment, serverHandle, startChild, which, withoutPrefixed } = require('./processes.cjs');

/** @typedef {import('./processes.cjs').Env} Env */
/** @typedef {import('./processes.cjs').Log} Log */
/** @typedef {import('./processes.cjs').ServerHandle} ServerHandle */

/**
 * @param {object} [options]
 * @param {string} [options.dataDir]  required unless `env` names a server
 * @param {Log} [options.log]
 * @param {Env} [options.env]  whose MONGODB_URL is honoured (tests that need a server of their own pass {})
 * @param {number} [options.port]  listen there instead of on a free port (a test restarting its server on the same address)
 * @param {import('./ferretdb-build.cjs').FerretFlavour} [options.ferret]  FerretDB as the stack runs it (patched), or FerretDB's own (stock: the differential test and the bench compare them)
 * @returns {Promise<ServerHandle>}
 */
async function ensureMongo({ dataDir, log = defaultLog, env = process.env, port, ferret = 'patched' } = {}) {
  const given = fromEnvironment(env, 'MONGODB_URL', log);
  if (given) return given;
  if (!dataDir) throw new Error('ensureMongo: dataDir is required');
  const dir = path.resolve(dataDir);

  const mongod = which('mongod');
  if (mongod && ferret === 'patched') return startMongod(mongod, dir, log, port);

  const ferretdb = await ensureFerretBinary(log, ferret);
  if (ferretdb) return startFerretWithBackend(ferretdb, dir, log, port, env);

  throw new Error(
    'No MongoDB-compatible server available. Either set MONGODB_URL to a running MongoDB, ' +
      'put `mongod` on the PATH, or install Go (https://go.dev/dl/, `apt-get install golang-go`) ' +
      `so that FerretDB ${FERRET_VERSION} can be built once into ${ferretCacheDir()}.`,
  );
}

/** @param {string} bin @param {string} dir @param {Log} log @param {number | undefined} fixedPort */
async function startMongod(bin, dir, log, fixedPort) {
  const dbPath = path.join(dir, 'mongod');
  fs.mkdirSync(dbPath, { recursive: true });
  const port = fixedPort ?? (await freePort());
  log(`starting mongod on ${LOOPBACK}:${port} (data ${dbPath})`);
  const child = startChild({
    name: 'mongod',
    cmd: bin,
    args: ['--dbpath', dbPath, '--bind_ip', LOOPBACK, '--port', String(port)],
    env: process.env,
    logFile: path.join(dir, 'mongod.log'),
    log,
  });
  return serverHandle(child, port, 'mongod');
}

// FerretDB stores documents in PostgreSQL or SQLite. With SQLite it uses no index at all (a
// findOne by a unique field scans the whole collection); with PostgreSQL the same lookup uses
// one. So PostgreSQL when it can be had, SQLite otherwise.
// RESTGATE_FERRETDB_BACKEND=sqlite|postgresql forces one (the bench compares them).
/**
 * @param {string} bin @param {string} dir @param {Log} log @param {number | undefined} fixedPort @param {Env} env
 * @returns {Promise<ServerHandle>}
 */
async function startFerretWithBackend(bin, dir, log, fixedPort, env) {
  const wanted = ferretBackend(env);
  if (wanted === 'postgresql') {
    let postgres = null;
    try {
      postgres = await ensurePostgres(dir, log);
    } catch (err) {
      const first = /** @type {Error} */ (err).message.split('\n')[0];
      log(`PostgreSQL is not available (${first}); FerretDB falls back to SQLite, which serves small data sets only`);
    }
    if (postgres) {
      const pg = postgres;
      try {
        const handle = await startFerret(bin, dir, log, fixedPort, { postgresUrl: pg.url });
        return { ...handle, stop: () => handle.stop().finally(() => pg.stop()), source: 'ferretdb+postgresql' };
      } catch (err) {
        await pg.stop().catch(() => {});
        throw err;
      }
    }
  }
  return startFerret(bin, dir, log, fixedPort, {});
}

/**
 * The storage FerretDB should use, from RESTGATE_FERRETDB_BACKEND (in `env`, else in this process's).
 * @param {Env} env @returns {'postgresql' | 'sqlite'}
 */
function ferretBackend(env) {
  const wanted = env.RESTGATE_FERRETDB_BACKEND || process.env.RESTGATE_FERRETDB_BACKEND || 'postgresql';
  if (wanted !== 'postgresql' && wanted !== 'sqlite')
    throw new Error(`RESTGATE_FERRETDB_BACKEND must be postgresql or sqlite, not ${wanted}`);
  return wanted;
}

/**
 * @param {string} bin @param {string} dir @param {Log} log @param {number | undefined} fixedPort
 * @param {{ postgresUrl?: string }} storage  PostgreSQL's address; SQLite in <dir>/ferretdb without one
 */
async function startFerret(bin, dir, log, fixedPort, { postgresUrl }) {
  const sqliteDir = path.join(dir, 'ferretdb');
  const stateDir = path.join(dir, 'ferretdb-state');
  if (!postgresUrl) fs.mkdirSync(sqliteDir, { recursive: true });
  fs.mkdirSync(stateDir, { recursive: true });
  const port = fixedPort ?? (await freePort());
  log(`starting FerretDB ${FERRET_VERSION} (${postgresUrl ? 'PostgreSQL' : `SQLite in ${sqliteDir}`}) on ${LOOPBACK}:${port}`);
  const child = startChild({
    name: 'ferretdb',
    cmd: bin,
    args: ferretArgs({ sqliteDir, stateDir, port, postgresUrl }),
    env: withoutPrefixed(process.env, 'FERRETDB_'),
    logFile: path.join(dir, 'ferretdb.log'),
    log,
  });
  return serverHandle(child, port, 'ferretdb');
}

/** @param {{ sqliteDir: string, stateDir: string, port: number, postgresUrl?: string }} options */
function ferretArgs({ sqliteDir, stateDir, port, postgresUrl }) {
  const storage = postgresUrl
    ? ['--handler=postgresql', `--postgresql-url=${postgresUrl}`]
    : // FerretDB wants an existing directory, given as a URI ending in "/".
      ['--handler=sqlite', `--sqlite-url=${pathToFileURL(sqliteDir + path.sep).href}`];
  return [
    ...storage,
    `--listen-addr=${LOOPBACK}:${port}`,
    `--state-dir=${stateDir}`,
    // Dotted equality (`user.id`, `mail.status`) reaches PostgreSQL only with this flag. It misses
    // `{'a.b': 1}` against `{a: [{b: 1}]}`: no dotted filter may go through an array (docs/operations.md).
    ...(postgresUrl ? ['--test-enable-nested-pushdown'] : []),
    // "-" turns off the metrics/pprof listener, which would otherwise claim 127.0.0.1:8088.
    '--debug-addr=-',
    '--telemetry=disable',
    '--log-level=warn',
  ];
}

module.exports = { ensureMongo, ferretBackend };
