'use strict';
// Provisions the backing services (a MongoDB-compatible server and RabbitMQ) for local runs, tests
// and CI. Node built-ins only: this runs before `npm install`.
//
// Every process started here is owned by the caller: the returned stop() ends it by its own pid
// (never by name), and a best-effort 'exit' hook ends anything the caller forgot to stop.
// One dataDir per concurrently running stack: two FerretDB processes must not share a SQLite folder.
//
// RabbitMQ's epmd (Erlang port mapper) daemonizes itself outside our process group. So each of our
// brokers gets an epmd of its own, on a free port instead of the shared 4369 (ERL_EPMD_PORT), and
// ends it with `epmd -kill` after the broker: two stacks stopping at once each end their own, and
// an epmd someone else runs on 4369 is never touched.

const { spawn } = require('node:child_process');
const { randomBytes } = require('node:crypto');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { pathToFileURL } = require('node:url');
const { canInstallPackages, ensurePackages } = require('./packages.cjs');
const { tryLock, unlock } = require('./pid-lock.cjs');

const LOOPBACK = '127.0.0.1';
const AMQP_HEADER = Buffer.from('AMQP\x00\x00\x09\x01', 'latin1');

const FERRET_VERSION = 'v1.24.2';
const FERRET_MODULE = 'github.com/FerretDB/FerretDB';

const defaultLog = (msg) => process.stderr.write(`[backing] ${msg}\n`);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------------------------------------
// Small helpers

// Ports handed out below the kernel's ephemeral range (32768–60999 on Linux): a port the kernel
// picked for `listen(0)` can be taken by an outgoing connection before our process binds it,
// which made test stacks fail now and then with "port already in use".
const PORT_RANGE = { from: 20000, to: 32000 };
const handedOut = new Set();

/** A port on loopback that nothing listens on now, not handed out before by this process. */
async function freePort() {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = PORT_RANGE.from + Math.floor(Math.random() * (PORT_RANGE.to - PORT_RANGE.from));
    if (handedOut.has(port) || !(await canListen(port))) continue;
    handedOut.add(port);
    return port;
  }
  throw new Error(`no free port between ${PORT_RANGE.from} and ${PORT_RANGE.to} on ${LOOPBACK}`);
}

// Bind-test rather than connect-test: something bound to 0.0.0.0 but not answering still blocks us.
async function canListen(port) {
  const server = net.createServer();
  const ok = await new Promise((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, LOOPBACK, () => resolve(true));
  });
  if (ok) await new Promise((resolve) => server.close(resolve));
  return ok;
}

function tcpConnects(host, port, timeoutMs = 1000) {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

// A real broker answers the protocol header with connection.start (frame type 1), or with its
// own header when it speaks another version; anything else on the port is not AMQP.
function amqpAnswers(host, port, timeoutMs = 2000) {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => socket.write(AMQP_HEADER));
    socket.once('data', (data) => done(data[0] === 1 || data.subarray(0, 4).toString('latin1') === 'AMQP'));
    socket.once('error', () => done(false));
    socket.once('end', () => done(false));
  });
}

// Polls check() until it returns true. Fails early, with the log tail, when `child` dies meanwhile.
async function waitFor(check, { timeoutMs, what, child, intervalMs = 200 }) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child && child.exitInfo) {
      throw new Error(`${what}: ${child.name} exited (${child.exitInfo}) before it was ready\n${child.tail()}`);
    }
    if (await check()) return;
    await sleep(intervalMs);
  }
  const tail = child ? `\n${child.tail()}` : '';
  throw new Error(`${what}: not ready after ${Math.round(timeoutMs / 1000)} s${tail}`);
}

function waitForPort(host, port, timeoutMs, { child } = {}) {
  return waitFor(() => tcpConnects(host, port, 500), { timeoutMs, what: `waiting for ${host}:${port}`, child });
}

function which(cmd) {
  for (const dir of (process.env.PATH || '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, cmd);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      if (fs.statSync(candidate).isFile()) return candidate;
    } catch {
      // not in this PATH entry
    }
  }
  return null;
}

function isExecutable(file) {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function lastLines(text, count = 30) {
  return text.trimEnd().split('\n').slice(-count).join('\n');
}

/** The last `count` lines of a file, read from its last `bytes`; '' when it can't be read. */
function readTail(file, bytes = 8192, count = 30) {
  try {
    const { size } = fs.statSync(file);
    const fd = fs.openSync(file, 'r');
    try {
      const length = Math.min(size, bytes);
      const buffer = Buffer.alloc(length);
      fs.readSync(fd, buffer, 0, length, size - length);
      return lastLines(buffer.toString('utf8'), count);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return '';
  }
}

// Runs a command to completion; the error carries the command's output tail, which is what
// anyone debugging a failed CI run needs first.
function run(cmd, args, { cwd, env, timeoutMs = 0 } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let output = '';
    const keep = (chunk, toStdout) => {
      if (toStdout) stdout += chunk;
      output = (output + chunk).slice(-16384);
    };
    child.stdout.on('data', (chunk) => keep(chunk, true));
    child.stderr.on('data', (chunk) => keep(chunk, false));
    const timer = timeoutMs ? setTimeout(() => child.kill('SIGKILL'), timeoutMs) : null;
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) return resolve(stdout);
      const how = signal ? `signal ${signal}` : `exit code ${code}`;
      reject(new Error(`\`${cmd} ${args.join(' ')}\` failed (${how})\n${lastLines(output)}`));
    });
  });
}

// ---------------------------------------------------------------------------------------------
// Long-running children we own

const liveChildren = new Set();

// The caller may exit without awaiting stop(); this keeps our servers from outliving it.
process.once('exit', () => {
  for (const child of liveChildren) child.signal('SIGTERM');
});

function startChild({ name, cmd, args, env, cwd, logFile, log, uid, gid }) {
  fs.mkdirSync(path.dirname(logFile), { recursive: true });
  const fd = fs.openSync(logFile, 'w');
  let proc;
  try {
    // A file, not a pipe: the server must not block or die on a full or broken pipe.
    // Detached: its own process group, so a terminal's Ctrl-C reaches only us and we stop it in
    // order, and so one signal to the group also reaches its helpers (RabbitMQ's beam.smp).
    proc = spawn(cmd, args, { env, cwd, uid, gid, detached: true, stdio: ['ignore', fd, fd] });
  } finally {
    fs.closeSync(fd);
  }

  const child = {
    name,
    pid: proc.pid,
    logFile,
    exitInfo: null,
    stopping: false,
    tail: () => `--- last lines of ${logFile} ---\n${readTail(logFile)}`,
    signal(sig) {
      try {
        process.kill(-proc.pid, sig);
      } catch {
        // already gone
      }
    },
  };
  child.exited = new Promise((resolve) => {
    proc.once('error', (err) => {
      child.exitInfo = err.message;
      resolve();
    });
    proc.once('exit', (code, sig) => {
      child.exitInfo = sig ? `signal ${sig}` : `exit code ${code}`;
      resolve();
    });
  }).then(() => {
    liveChildren.delete(child);
    if (!child.stopping) log(`${name} (pid ${proc.pid}) exited unexpectedly (${child.exitInfo}); log: ${logFile}`);
  });
  child.stop = async (graceMs = 20000) => {
    if (child.exitInfo) return;
    child.stopping = true;
    child.signal('SIGTERM');
    let timer;
    const timedOut = await Promise.race([
      child.exited.then(() => false),
      new Promise((resolve) => {
        timer = setTimeout(resolve, graceMs, true);
      }),
    ]);
    clearTimeout(timer); // a pending timer would keep the caller's process alive for graceMs
    if (timedOut) {
      log(`${name} (pid ${proc.pid}) ignored SIGTERM for ${graceMs / 1000} s; sending SIGKILL`);
      child.signal('SIGKILL');
      await child.exited;
    }
  };
  liveChildren.add(child);
  return child;
}

// Used when a child fails to come up: stop it and keep the caller's original error.
async function stopQuietly(child) {
  child.stopping = true;
  await child.stop(5000).catch(() => {});
}

const noop = async () => {};

// ---------------------------------------------------------------------------------------------
// Debian packages, all in one step

// Installs, in one apt-get step, every package that ensureMongo/ensureRabbit/ensureRedis would
// otherwise install one by one (plus `extra`, e.g. the browser `npm test` needs). Call it before
// starting those in parallel: their own installs would then race for the package database. Each of
// them still installs what is missing when called alone, through the same packages.cjs.
// `env`: whose MONGODB_URL/AMQP_URL/REDIS_URL are honoured, as by the ensure* calls.
async function provisionBacking({ env = process.env, log = defaultLog, mongo = true, rabbit = true, redis = true, extra = [] } = {}) {
  const names = [...extra];
  if (mongo && !env.MONGODB_URL && !which('mongod') && ferretBackend(env) === 'postgresql' && !findPostgresBin()) {
    names.push('postgresql');
  }
  if (rabbit && !env.AMQP_URL && !findRabbitTools()) names.push('rabbitmq-server');
  if (redis && !env.REDIS_URL && !which('redis-server')) names.push('redis-server');
  // Without root the ensure* calls say what to install, each for its own server.
  if (names.length === 0 || !canInstallPackages()) return [];
  return ensurePackages(names, { log });
}

// A server we can't find is installed the one way (packages.cjs); failing that, the error also
// says what else would do.
async function installOrExplain(pkg, log, alternative) {
  try {
    await ensurePackages([pkg], { log });
  } catch (err) {
    throw new Error(`${alternative}. ${err.message}`);
  }
}

// ---------------------------------------------------------------------------------------------
// MongoDB-compatible server

// `env`: whose MONGODB_URL is honoured (tests that need a server of their own pass {}).
// `port`: listen there instead of on a free port (a test restarting its server on the same address).
async function ensureMongo({ dataDir, log = defaultLog, env = process.env, port } = {}) {
  if (env.MONGODB_URL) {
    log('using MONGODB_URL from the environment');
    return { url: env.MONGODB_URL, stop: noop, source: 'env' };
  }
  if (!dataDir) throw new Error('ensureMongo: dataDir is required');
  const dir = path.resolve(dataDir);

  const mongod = which('mongod');
  if (mongod) return startMongod(mongod, dir, log, port);

  const ferretdb = await ensureFerretBinary(log);
  if (ferretdb) return startFerretWithBackend(ferretdb, dir, log, port, env);

  throw new Error(
    'No MongoDB-compatible server available. Either set MONGODB_URL to a running MongoDB, ' +
      'put `mongod` on the PATH, or install Go (https://go.dev/dl/, `apt-get install golang-go`) ' +
      `so that FerretDB ${FERRET_VERSION} can be built once into ${ferretCacheDir()}.`,
  );
}

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
// findOne by a unique field scans the collection: ~200 ms at 10,000 users); with PostgreSQL the
// same lookup takes a few milliseconds. So PostgreSQL when it can be had, SQLite otherwise.
// RESTGATE_FERRETDB_BACKEND=sqlite|postgresql forces one (the bench compares them).
async function startFerretWithBackend(bin, dir, log, fixedPort, env) {
  const wanted = ferretBackend(env);
  if (wanted === 'postgresql') {
    let postgres = null;
    try {
      postgres = await ensurePostgres(dir, log);
    } catch (err) {
      log(`PostgreSQL is not available (${err.message.split('\n')[0]}); FerretDB falls back to SQLite, which serves small data sets only`);
    }
    if (postgres) {
      try {
        const handle = await startFerret(bin, dir, log, fixedPort, { postgresUrl: postgres.url });
        return { ...handle, stop: () => handle.stop().finally(() => postgres.stop()), source: 'ferretdb+postgresql' };
      } catch (err) {
        await postgres.stop().catch(() => {});
        throw err;
      }
    }
  }
  return startFerret(bin, dir, log, fixedPort, {});
}

function ferretBackend(env) {
  const wanted = env.RESTGATE_FERRETDB_BACKEND || process.env.RESTGATE_FERRETDB_BACKEND || 'postgresql';
  if (wanted !== 'postgresql' && wanted !== 'sqlite')
    throw new Error(`RESTGATE_FERRETDB_BACKEND must be postgresql or sqlite, not ${wanted}`);
  return wanted;
}

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

function ferretArgs({ sqliteDir, stateDir, port, postgresUrl }) {
  const storage = postgresUrl
    ? ['--handler=postgresql', `--postgresql-url=${postgresUrl}`]
    : // FerretDB wants an existing directory, given as a URI ending in "/".
      ['--handler=sqlite', `--sqlite-url=${pathToFileURL(sqliteDir + path.sep).href}`];
  return [
    ...storage,
    `--listen-addr=${LOOPBACK}:${port}`,
    `--state-dir=${stateDir}`,
    // "-" turns off the metrics/pprof listener, which would otherwise claim 127.0.0.1:8088.
    '--debug-addr=-',
    '--telemetry=disable',
    '--log-level=warn',
  ];
}

// Both servers read settings from variables with their own prefix (FerretDB one per flag); a stray
// one in the caller's environment must not change the setup chosen here.
function withoutPrefixed(env, prefix) {
  return Object.fromEntries(Object.entries(env).filter(([key]) => !key.startsWith(prefix)));
}

async function serverHandle(child, port, source) {
  try {
    await waitForPort(LOOPBACK, port, 30000, { child });
  } catch (err) {
    await stopQuietly(child);
    throw err;
  }
  return { url: `mongodb://${LOOPBACK}:${port}/`, stop: () => child.stop(), source };
}

// --- PostgreSQL for FerretDB: a cluster of our own in <dataDir>/postgres, on loopback ---------

const PG_USER = 'ferretdb';
// The database initdb creates; FerretDB keeps each MongoDB database in a schema of its own there.
const PG_DB = 'postgres';

// Debian puts the server binaries in /usr/lib/postgresql/<major>/bin, not on the PATH.
function findPostgresBin() {
  const onPath = which('initdb');
  // The real folder: a link on the PATH (/usr/local/bin/initdb) may not have postgres beside it.
  if (onPath && isExecutable(path.join(path.dirname(fs.realpathSync(onPath)), 'postgres'))) return path.dirname(fs.realpathSync(onPath));
  const base = '/usr/lib/postgresql';
  const majors = fs.existsSync(base)
    ? fs
        .readdirSync(base)
        .filter((v) => /^\d+$/.test(v))
        .sort((a, b) => b - a)
    : [];
  for (const major of majors) {
    const dir = path.join(base, major, 'bin');
    if (isExecutable(path.join(dir, 'initdb')) && isExecutable(path.join(dir, 'postgres'))) return dir;
  }
  return null;
}

// PostgreSQL refuses to run as root. As root we run it as the `postgres` account Debian's package
// creates, which must then be able to reach its folder: the folders above it get o+x (enter, not list).
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

function letAccountIn(dir, account) {
  for (let d = path.dirname(dir); d !== path.dirname(d); d = path.dirname(d)) {
    const { mode } = fs.statSync(d);
    if ((mode & 0o001) === 0) fs.chmodSync(d, mode | 0o001);
  }
  fs.chownSync(dir, account.uid, account.gid);
}

async function ensurePostgres(dataDir, log) {
  let binDir = findPostgresBin();
  if (!binDir) {
    await ensurePackages(['postgresql'], { log });
    binDir = findPostgresBin();
    if (!binDir) throw new Error('initdb is still not found after installing postgresql');
  }
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
    await runAs(path.join(binDir, 'initdb'), ['-D', clusterDir, '-U', PG_USER, '--auth=trust', '--encoding=UTF8', '--no-sync'], {
      env,
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
    ],
    env,
    logFile: path.join(dataDir, 'postgres.log'),
    log,
    ...asAccount,
  });
  const handle = await serverHandle(child, port, 'postgres');
  return { url: `postgres://${PG_USER}@${LOOPBACK}:${port}/${PG_DB}`, stop: handle.stop };
}

function runAs(cmd, args, { env, uid, gid }) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env, uid, gid, cwd: '/', stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c) => (output = (output + c).slice(-8192)));
    child.stderr.on('data', (c) => (output = (output + c).slice(-8192)));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(output);
      else reject(new Error(`\`${path.basename(cmd)} ${args.join(' ')}\` failed (exit code ${code})\n${lastLines(output)}`));
    });
  });
}

// --- FerretDB binary, built once per machine and version -----------------------------------

function ferretCacheDir() {
  const xdg = process.env.XDG_CACHE_HOME;
  const base = xdg && path.isAbsolute(xdg) ? xdg : path.join(os.homedir(), '.cache');
  return path.join(base, 'restgate', `ferretdb-${FERRET_VERSION}`);
}

async function ferretRuns(bin) {
  try {
    const out = await run(bin, ['--version'], { timeoutMs: 15000 });
    return out.includes(`version: ${FERRET_VERSION}`);
  } catch {
    return false;
  }
}

// Returns the cached binary, building it first when needed; null when it is missing and no Go.
async function ensureFerretBinary(log) {
  const cacheDir = ferretCacheDir();
  const bin = path.join(cacheDir, 'ferretdb');
  const lockFile = path.join(cacheDir, 'build.lock');
  let reported = false;
  const deadline = Date.now() + 30 * 60 * 1000;

  while (Date.now() < deadline) {
    if (await ferretRuns(bin)) return bin;
    if (!which('go')) return null;
    fs.mkdirSync(cacheDir, { recursive: true });
    if (tryLock(lockFile)) {
      try {
        // Another run may have finished between our check and taking the lock.
        if (await ferretRuns(bin)) return bin;
        if (fs.existsSync(bin)) log(`cached ${bin} does not run; building it again`);
        await buildFerret(bin, log);
        return bin;
      } finally {
        unlock(lockFile);
      }
    }
    if (!reported) {
      log(`another process is building FerretDB ${FERRET_VERSION} (lock ${lockFile}); waiting for it`);
      reported = true;
    }
    await sleep(2000);
  }
  throw new Error(`gave up waiting for the FerretDB build holding ${lockFile}`);
}

// `go install ...@v1.24.2` fails here (the proxy refuses the deprecation lookup it makes), so we
// fetch the module through a throwaway module instead. And because the module zip lacks the
// generated build/version/version.txt, a binary built straight from the module cache panics at
// start; we build from a copy with that file written in.
async function buildFerret(bin, log) {
  const started = Date.now();
  log(`building FerretDB ${FERRET_VERSION} once into ${path.dirname(bin)}, takes a few minutes`);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'restgate-ferretdb-'));
  const tmpBin = `${bin}.tmp`;
  try {
    const go = (args, cwd) => run('go', args, { cwd, env: process.env });
    await go(['mod', 'init', 'fbbuild'], tmp);
    log('fetching FerretDB sources and dependencies');
    await go(['get', `${FERRET_MODULE}/cmd/ferretdb@${FERRET_VERSION}`], tmp);
    const moduleDir = (await go(['list', '-m', '-f', '{{.Dir}}', FERRET_MODULE], tmp)).trim();

    const src = path.join(tmp, 'src');
    fs.cpSync(moduleDir, src, { recursive: true });
    makeWritable(src); // the module cache is read-only, and so is a copy of it
    fs.writeFileSync(path.join(src, 'build', 'version', 'version.txt'), `${FERRET_VERSION}\n`);

    log('compiling FerretDB');
    await go(['build', '-buildvcs=false', '-ldflags=-checklinkname=0', '-o', tmpBin, './cmd/ferretdb'], src);
    if (!(await ferretRuns(tmpBin))) throw new Error(`the freshly built ${tmpBin} does not run`);
    fs.renameSync(tmpBin, bin);
    log(`built FerretDB ${FERRET_VERSION} in ${Math.round((Date.now() - started) / 1000)} s: ${bin}`);
  } finally {
    fs.rmSync(tmpBin, { force: true });
    makeWritable(tmp);
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

function makeWritable(dir) {
  if (!fs.existsSync(dir)) return;
  fs.chmodSync(dir, 0o755);
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) makeWritable(full);
    else if (!entry.isSymbolicLink()) fs.chmodSync(full, 0o644 | (fs.statSync(full).mode & 0o111));
  }
}

// ---------------------------------------------------------------------------------------------
// RabbitMQ

// `env`: whose AMQP_URL is honoured. `port`: start the broker there (a test that stops and
// restarts its broker on the same address).
//
// Without AMQP_URL every stack (each `npm start` checkout, `npm run docs`, each test run) gets a
// broker of its own, never one that happens to answer on 5672: a broker shared under the same
// queue names let one stack's mailer take another's mail. Its only user and virtual host are
// this dataDir's (random, kept in rabbitmq/credentials.json, 0600); there is no guest user.
async function ensureRabbit({ dataDir, log = defaultLog, env = process.env, port } = {}) {
  if (env.AMQP_URL) {
    log('using AMQP_URL from the environment');
    return { url: env.AMQP_URL, stop: noop, source: 'env' };
  }
  if (!dataDir) throw new Error('ensureRabbit: dataDir is required');

  let tools = findRabbitTools();
  if (!tools) {
    await installOrExplain('rabbitmq-server', log, 'RabbitMQ is not available. Set AMQP_URL to a running broker, or install it');
    tools = findRabbitTools();
    if (!tools) throw new Error('rabbitmq-server is still not found after installing it');
  }
  return startRabbit(tools, path.resolve(dataDir), log, port);
}

// The stack's broker login, the same on every start from one dataDir (a restarted broker keeps
// the address and credentials the running services hold).
function rabbitCredentials(base) {
  const file = path.join(base, 'credentials.json');
  try {
    const saved = JSON.parse(fs.readFileSync(file, 'utf8'));
    if (saved.user && saved.password && saved.vhost) return saved;
  } catch {
    // none yet, or unreadable: a new login
  }
  const id = randomBytes(4).toString('hex');
  const credentials = { user: `restgate-${id}`, password: randomBytes(24).toString('base64url'), vhost: `restgate-${id}` };
  fs.mkdirSync(base, { recursive: true, mode: 0o700 });
  fs.writeFileSync(file, `${JSON.stringify(credentials)}\n`, { mode: 0o600 });
  return credentials;
}

// Debian's /usr/sbin/rabbitmq-server is a wrapper that, as root, re-runs the real script through
// `su rabbitmq` in a new session, with output sent to /var/log: we could neither signal its
// process group nor use a data folder of ours. So we run the real scripts directly when present.
function findRabbitTools() {
  const libDir = '/usr/lib/rabbitmq/bin';
  if (isExecutable(path.join(libDir, 'rabbitmq-server')) && isExecutable(path.join(libDir, 'rabbitmqctl'))) {
    return { server: path.join(libDir, 'rabbitmq-server'), ctl: path.join(libDir, 'rabbitmqctl') };
  }
  const server = which('rabbitmq-server');
  const ctl = which('rabbitmqctl');
  return server && ctl ? { server, ctl } : null;
}

// Node names must be unique per machine; the pid covers other processes, the count this one. The
// random part covers copies of this module in one process (jest loads it afresh per test file).
let rabbitCount = 0;
const moduleCopy = randomBytes(3).toString('hex');

async function startRabbit(tools, dataDir, log, fixedPort) {
  const started = Date.now();
  // A free port, not 5672 when it happens to be free: two stacks starting at once would both see
  // it free, and the second broker would fail to listen.
  const port = fixedPort ?? (await freePort());
  rabbitCount += 1;
  const node = `restgate-${process.pid}-${moduleCopy}${rabbitCount > 1 ? `-${rabbitCount}` : ''}@localhost`;
  const base = path.join(dataDir, 'rabbitmq');
  const nodeDir = path.join(base, node);
  const credentials = rabbitCredentials(base);
  const env = await rabbitEnv({ base, nodeDir, node, port, credentials });

  log(`starting RabbitMQ node ${node} on ${LOOPBACK}:${port} (files in ${nodeDir})`);
  const child = startChild({
    name: 'rabbitmq-server',
    cmd: tools.server,
    args: [],
    env,
    cwd: nodeDir,
    logFile: path.join(nodeDir, 'stdout.log'),
    log,
  });

  try {
    await waitFor(() => amqpAnswers(LOOPBACK, port, 1000), {
      timeoutMs: 60000,
      what: `RabbitMQ on ${LOOPBACK}:${port}`,
      child,
      intervalMs: 250,
    });
    await waitFor(() => ctlStatusOk(tools.ctl, node, env), {
      timeoutMs: Math.max(5000, 60000 - (Date.now() - started)),
      what: `rabbitmqctl -n ${node} status`,
      child,
    });
  } catch (err) {
    await stopQuietly(child);
    await killEpmd(env);
    throw err;
  }
  log(`RabbitMQ ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);

  const stop = async () => {
    const crashed = Boolean(child.exitInfo) && !child.stopping;
    await child.stop(20000);
    await killEpmd(env);
    // The node name is unique to this run, so nothing would ever read these files again; after a
    // crash, though, its logs are what someone will want to read.
    if (!crashed) fs.rmSync(nodeDir, { recursive: true, force: true });
  };
  const login = `${encodeURIComponent(credentials.user)}:${encodeURIComponent(credentials.password)}`;
  return { url: `amqp://${login}@${LOOPBACK}:${port}/${encodeURIComponent(credentials.vhost)}`, stop, source: 'rabbitmq-server' };
}

// Everything the broker writes goes under dataDir, and nothing from /etc/rabbitmq (an admin's
// plugins, listeners, node name) changes our broker. HOME is ours too, so the Erlang cookie that
// both the broker and rabbitmqctl read is created there and not in the user's home.
//
// The node's first boot (its node name, hence its database, is new on every start) creates the
// stack's user and virtual host from rabbitmq.conf instead of guest. The Erlang distribution
// listens on loopback only, and so does the node's own epmd.
async function rabbitEnv({ base, nodeDir, node, port, credentials }) {
  const home = path.join(base, 'home');
  fs.mkdirSync(home, { recursive: true });
  fs.mkdirSync(nodeDir, { recursive: true });
  const confEnvFile = path.join(nodeDir, 'rabbitmq-env.conf');
  const pluginsFile = path.join(nodeDir, 'enabled_plugins');
  fs.writeFileSync(confEnvFile, '# intentionally empty: settings come from the environment\n');
  fs.writeFileSync(pluginsFile, '[].\n');
  fs.writeFileSync(
    path.join(nodeDir, 'rabbitmq.conf'),
    [
      `default_vhost = ${credentials.vhost}`,
      `default_user = ${credentials.user}`,
      `default_pass = ${credentials.password}`,
      'default_permissions.configure = .*',
      'default_permissions.read = .*',
      'default_permissions.write = .*',
      '',
    ].join('\n'),
    { mode: 0o600 },
  );
  fs.writeFileSync(path.join(nodeDir, 'advanced.config'), '[{kernel, [{inet_dist_use_interface, {127,0,0,1}}]}].\n', { mode: 0o600 });
  return {
    ...withoutPrefixed(process.env, 'RABBITMQ_'),
    ERL_EPMD_ADDRESS: LOOPBACK,
    // The broker's own epmd (see the top of this file); rabbitmqctl and `epmd -kill` get it too.
    ERL_EPMD_PORT: String(await freePort()),
    HOME: home,
    RABBITMQ_NODENAME: node,
    RABBITMQ_NODE_IP_ADDRESS: LOOPBACK,
    RABBITMQ_NODE_PORT: String(port),
    // The default (AMQP port + 20000) may be taken by another broker, or exceed 65535.
    RABBITMQ_DIST_PORT: String(await freePort()),
    RABBITMQ_MNESIA_BASE: path.join(nodeDir, 'mnesia'),
    RABBITMQ_LOG_BASE: path.join(nodeDir, 'log'),
    RABBITMQ_CONF_ENV_FILE: confEnvFile,
    RABBITMQ_CONFIG_FILE: path.join(nodeDir, 'rabbitmq.conf'),
    RABBITMQ_ADVANCED_CONFIG_FILE: path.join(nodeDir, 'advanced.config'),
    RABBITMQ_ENABLED_PLUGINS_FILE: pluginsFile,
  };
}

async function ctlStatusOk(ctl, node, env) {
  try {
    await run(ctl, ['-n', node, '-q', 'status'], { env, timeoutMs: 20000 });
    return true;
  } catch {
    return false;
  }
}

async function killEpmd(env) {
  const epmd = which('epmd');
  if (epmd) await run(epmd, ['-kill'], { env, timeoutMs: 5000 }).catch(() => {});
}

// ---------------------------------------------------------------------------------------------
// Redis

// `env`: whose REDIS_URL is honoured (a test that kills its own server passes {}).
// `port`: listen there instead of on a free port (a test restarting its server on the same address).
async function ensureRedis({ dataDir, log = defaultLog, env = process.env, port } = {}) {
  if (env.REDIS_URL) {
    log('using REDIS_URL from the environment');
    return { url: env.REDIS_URL, stop: noop, source: 'env' };
  }
  if (!dataDir) throw new Error('ensureRedis: dataDir is required');
  let bin = which('redis-server');
  if (!bin) {
    await installOrExplain('redis-server', log, 'Redis is not available. Set REDIS_URL to a running server, or install it');
    bin = which('redis-server');
    if (!bin) throw new Error('redis-server is still not found after installing it');
  }
  const dir = path.join(path.resolve(dataDir), 'redis');
  fs.mkdirSync(dir, { recursive: true });
  const chosen = port ?? (await freePort());
  log(`starting redis-server on ${LOOPBACK}:${chosen} (files in ${dir})`);
  // An append-only file, fsynced every second, no snapshots: the ended sessions recorded here must
  // survive a restart (a lost one would re-admit its access tokens until they expire); the rate-limit
  // counters come back with them. At most the last second of writes can be lost by a crash of the machine.
  const child = startChild({
    name: 'redis-server',
    cmd: bin,
    args: [
      '--port',
      String(chosen),
      '--bind',
      LOOPBACK,
      '--save',
      '',
      '--appendonly',
      'yes',
      '--appendfsync',
      'everysec',
      '--dir',
      dir,
      '--daemonize',
      'no',
    ],
    env: process.env,
    logFile: path.join(dir, 'redis.log'),
    log,
  });
  const handle = await serverHandle(child, chosen, 'redis-server');
  return { ...handle, url: `redis://${LOOPBACK}:${chosen}`, pid: child.pid };
}

// .data/ holds password hashes (the SQLite files), live reset links (.eml files, logs) and the
// broker's login: only its owner may read it. The umask is inherited by every process started
// afterwards (servers, services), so what they create there is private too; what an older run
// left readable is tightened (folders 0700, files 0600).
function makePrivate(dir) {
  process.umask(0o077);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const tighten = (target) => {
    const stat = fs.lstatSync(target);
    if (stat.isSymbolicLink()) return;
    if (stat.isDirectory()) {
      fs.chmodSync(target, 0o700);
      for (const entry of fs.readdirSync(target)) tighten(path.join(target, entry));
    } else {
      fs.chmodSync(target, 0o600 | (stat.mode & 0o100));
    }
  };
  tighten(dir);
}

module.exports = {
  makePrivate,
  provisionBacking,
  ensureMongo,
  ensureRabbit,
  ensureFerretBinary,
  ensureRedis,
  freePort,
  waitForPort,
  readTail,
  // exported for scripts and tests that need the same answers
  amqpAnswers,
  ferretCacheDir,
  FERRET_VERSION,
};
