// @ts-check
'use strict';
// Commands run to completion, and the long-running servers the backing modules start. Node
// built-ins only: this runs before `npm install`.
//
// Every process started here is owned by the caller: its stop() ends it by its own pid (never by
// name), and a best-effort 'exit' hook ends anything the caller forgot to stop.

const { spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { LOOPBACK, waitForPort } = require('./ports.cjs');

/** @typedef {(msg: string) => void} Log */
/** @typedef {Record<string, string | undefined>} Env */

/**
 * What an ensure* call gives back: the server's address and how to stop it.
 * @typedef {object} ServerHandle
 * @property {string} url
 * @property {() => Promise<void>} stop
 * @property {string} source  'env' when the address came from the environment, else the server started
 * @property {number} [pid]
 */

/**
 * A server started by startChild.
 * @typedef {object} Child
 * @property {string} name
 * @property {number} pid
 * @property {string} logFile
 * @property {string | null} exitInfo  how it exited ('exit code 1', 'signal SIGTERM'), null while it runs
 * @property {boolean} stopping
 * @property {() => string} tail  the last lines of its log, headed by the file's name
 * @property {(sig: NodeJS.Signals) => void} signal  to its whole process group
 * @property {Promise<void>} exited
 * @property {(graceMs?: number) => Promise<void>} stop  SIGTERM, then SIGKILL after graceMs
 */

/** @type {Log} */
const defaultLog = (msg) => {
  process.stderr.write(`[backing] ${msg}\n`);
};
const noop = async () => {};

/** @param {string} cmd @returns {string | null} the executable's path on the PATH */
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

/** @param {string} file */
function isExecutable(file) {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** @param {string} text @param {number} [count] */
function lastLines(text, count = 30) {
  return text.trimEnd().split('\n').slice(-count).join('\n');
}

/**
 * The last `count` lines of a file, read from its last `bytes`; '' when it can't be read.
 * @param {string} file @param {number} [bytes] @param {number} [count]
 */
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

/**
 * Runs a command to completion and resolves with its stdout. The error carries the command's
 * output tail, which is what anyone debugging a failed CI run needs first.
 * @param {string} cmd @param {string[]} args
 * @param {{ cwd?: string, env?: Env, timeoutMs?: number, uid?: number, gid?: number }} [options]
 * @returns {Promise<string>}
 */
function run(cmd, args, { cwd, env, timeoutMs = 0, uid, gid } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env, uid, gid, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let output = '';
    /** @param {string} chunk @param {boolean} toStdout */
    const keep = (chunk, toStdout) => {
      if (toStdout) stdout += chunk;
      output = (output + chunk).slice(-16384);
    };
    child.stdout.on('data', (chunk) => keep(chunk, true));
    child.stderr.on('data', (chunk) => keep(chunk, false));
    const timer = timeoutMs ? setTimeout(() => child.kill('SIGKILL'), timeoutMs) : undefined;
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) return resolve(stdout);
      const how = signal ? `signal ${signal}` : `exit code ${code}`;
      reject(new Error(`\`${path.basename(cmd)} ${args.join(' ')}\` failed (${how})\n${lastLines(output)}`));
    });
  });
}

/** @type {Set<Child>} */
const liveChildren = new Set();

// The caller may exit without awaiting stop(); this keeps our servers from outliving it.
process.once('exit', () => {
  for (const child of liveChildren) child.signal('SIGTERM');
});

/**
 * Starts a long-running server with its output in `logFile`.
 * @param {{ name: string, cmd: string, args: string[], env: Env, cwd?: string, logFile: string, log: Log, uid?: number, gid?: number }} options
 * @returns {Child}
 */
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
  const pid = /** @type {number} */ (proc.pid);

  /** @type {Child} */
  const child = {
    name,
    pid,
    logFile,
    exitInfo: null,
    stopping: false,
    tail: () => `--- last lines of ${logFile} ---\n${readTail(logFile)}`,
    signal(sig) {
      try {
        process.kill(-pid, sig);
      } catch {
        // already gone
      }
    },
    exited: Promise.resolve(),
    stop: noop,
  };
  child.exited = new Promise((resolve) => {
    proc.once('error', (err) => {
      child.exitInfo = err.message;
      resolve(undefined);
    });
    proc.once('exit', (code, sig) => {
      child.exitInfo = sig ? `signal ${sig}` : `exit code ${code}`;
      resolve(undefined);
    });
  }).then(() => {
    liveChildren.delete(child);
    if (!child.stopping) log(`${name} (pid ${pid}) exited unexpectedly (${child.exitInfo}); log: ${logFile}`);
  });
  child.stop = async (graceMs = 20000) => {
    if (child.exitInfo) return;
    child.stopping = true;
    child.signal('SIGTERM');
    /** @type {NodeJS.Timeout | undefined} */
    let timer;
    const timedOut = await Promise.race([
      child.exited.then(() => false),
      new Promise((resolve) => {
        timer = setTimeout(resolve, graceMs, true);
      }),
    ]);
    clearTimeout(timer); // a pending timer would keep the caller's process alive for graceMs
    if (timedOut) {
      log(`${name} (pid ${pid}) ignored SIGTERM for ${graceMs / 1000} s; sending SIGKILL`);
      child.signal('SIGKILL');
      await child.exited;
    }
  };
  liveChildren.add(child);
  return child;
}

/**
 * Used when a child fails to come up: stop it and keep the caller's original error.
 * @param {Child} child
 */
async function stopQuietly(child) {
  child.stopping = true;
  await child.stop(5000).catch(() => {});
}

/**
 * Waits for a started server to accept connections on its port; stops it when it doesn't. The
 * url is the MongoDB wire protocol's; servers that speak another give their own.
 * @param {Child} child @param {number} port @param {string} source
 * @returns {Promise<ServerHandle>}
 */
async function serverHandle(child, port, source) {
  try {
    await waitForPort(LOOPBACK, port, 30000, { child });
  } catch (err) {
    await stopQuietly(child);
    throw err;
  }
  return { url: `mongodb://${LOOPBACK}:${port}/`, stop: () => child.stop(), source };
}

/**
 * The server the environment names in `key` (MONGODB_URL, AMQP_URL, REDIS_URL), which we neither
 * start nor stop; null when it names none.
 * @param {Env} env @param {string} key @param {Log} log
 * @returns {ServerHandle | null}
 */
function fromEnvironment(env, key, log) {
  const url = env[key];
  if (!url) return null;
  log(`using ${key} from the environment`);
  return { url, stop: noop, source: 'env' };
}

/**
 * Servers read settings from variables with their own prefix (FerretDB one per flag, RabbitMQ,
 * PostgreSQL); a stray one in the caller's environment must not change the setup chosen here.
 * @param {Env} env @param {string} prefix @returns {Env}
 */
function withoutPrefixed(env, prefix) {
  return Object.fromEntries(Object.entries(env).filter(([key]) => !key.startsWith(prefix)));
}

module.exports = {
  defaultLog,
  which,
  isExecutable,
  lastLines,
  readTail,
  run,
  startChild,
  stopQuietly,
  serverHandle,
  fromEnvironment,
  withoutPrefixed,
};
