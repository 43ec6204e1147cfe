// @ts-check
'use strict';
// One process of the stack: `node <dir>/dist/start.js`, started, watched until healthy, stopped.
// Node built-ins only: npm start uses it before `npm install`.
//
// Each runs in its own process group, so a Ctrl-C in the terminal reaches only the script that
// started it, and that script stops the services in order, once, gracefully (a service that gets
// a second signal while stopping exits at once).

const { spawn } = require('node:child_process');
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const { formatLogLine } = require('./log-lines.cjs');
const { readTail } = require('./processes.cjs');

const ROOT_DIR = path.resolve(__dirname, '..', '..');
const HOST = '127.0.0.1';

/** @typedef {import('./registry.cjs').ServiceEntry} ServiceEntry */
/** @typedef {Record<string, string | undefined>} Env */
/** @typedef {{ code: number | null, signal: NodeJS.Signals | null, error?: string }} ExitInfo */
/**
 * @typedef {object} ServiceProcess
 * @property {string} name
 * @property {number} pid
 * @property {number} port
 * @property {string} url
 * @property {string} logFile  `<logDir>/<name>.log`
 * @property {number} stopGraceMs  how long stop waits after SIGTERM before SIGKILL
 * @property {ExitInfo | null} exitInfo  null while it runs
 * @property {boolean} stopping
 * @property {() => string} tail  its last log lines, each made readable (log-lines.cjs)
 * @property {(sig: NodeJS.Signals) => void} signal  to its whole process group
 * @property {Promise<ExitInfo>} exited  resolves once it exited and its output is in the log file
 */

// A service stops by itself within DRAIN_DELAY_MS + 2 × SHUTDOWN_TIMEOUT_MS + 5 s (serving on
// while load balancers notice, in-flight requests, then what it opened), exiting 1 past that;
// SIGKILL comes only after it failed to do even that.
const DEFAULT_SHUTDOWN_TIMEOUT_MS = 10_000;
/** @param {Env} env */
const stopGraceMs = (env) =>
  (Number(env.DRAIN_DELAY_MS) || 0) + 2 * (Number(env.SHUTDOWN_TIMEOUT_MS) || DEFAULT_SHUTDOWN_TIMEOUT_MS) + 6_000;
const TAIL_LINES = 40;

/** @param {number} ms */
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Resolves with `promise`'s value, or with `onTimeout` after `ms`; never keeps the process alive.
 * @template T, U
 * @param {Promise<T>} promise @param {number} ms @param {U} [onTimeout]
 * @returns {Promise<T | U | undefined>}
 */
function within(promise, ms, onTimeout) {
  /** @type {NodeJS.Timeout | undefined} */
  let timer;
  const timeout = new Promise((resolve) => {
    timer = setTimeout(() => resolve(onTimeout), ms);
    timer.unref();
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Every service process this module started and that is still running. */
/** @type {Set<ServiceProcess>} */
const live = new Set();

// If the caller exits without stop() (an uncaught error, process.exit), the services must not
// outlive it: they run in their own process groups, so nothing else would end them.
process.once('exit', () => {
  for (const proc of live) proc.signal('SIGTERM');
});

/** @param {number} port @returns {Promise<boolean>} */
function healthOk(port) {
  return new Promise((resolve) => {
    const req = http.get({ host: HOST, port, path: '/health', timeout: 1000, agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.once('timeout', () => req.destroy());
    req.once('error', () => resolve(false));
  });
}

/** Calls `onLine` for every complete line of `stream`. @param {import('node:stream').Readable} stream @param {(line: string) => void} onLine */
function eachLine(stream, onLine) {
  let buffered = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk) => {
    buffered += chunk;
    let newline;
    while ((newline = buffered.indexOf('\n')) >= 0) {
      onLine(buffered.slice(0, newline));
      buffered = buffered.slice(newline + 1);
    }
  });
  stream.on('end', () => {
    if (buffered) onLine(buffered);
  });
}

/** Keeps the previous run's log as `<file>.1`, so a restart after a crash does not erase it. @param {string} logFile */
function rotate(logFile) {
  try {
    fs.renameSync(logFile, `${logFile}.1`);
  } catch {
    // no previous log
  }
}

/**
 * Starts one process of the stack. Its stdout and stderr go to `<name>.log`: through this process
 * when someone wants every line (`onLogLine`: `npm start` mirrors them, the tests read them),
 * otherwise straight into the file, so that a benchmark's load generator does not also relay
 * every access line of the stack it measures.
 * @param {{ def: ServiceEntry, port: number, env: Env, logDir: string,
 *   onLogLine?: (name: string, line: string, stream: 'stdout' | 'stderr') => void }} options
 * @returns {ServiceProcess}
 */
function spawnService({ def, port, env, logDir, onLogLine }) {
  const script = path.join(ROOT_DIR, def.dir, 'dist', 'start.js');
  const logFile = path.join(logDir, `${def.name}.log`);
  rotate(logFile);
  const relay = Boolean(onLogLine);
  const logStream = relay ? fs.createWriteStream(logFile, { flags: 'w' }) : null;
  const logFd = relay ? null : fs.openSync(logFile, 'w');
  const child = spawn(process.execPath, [script], {
    cwd: ROOT_DIR,
    env,
    stdio: relay ? ['ignore', 'pipe', 'pipe'] : ['ignore', logFd, logFd],
    detached: process.platform !== 'win32',
  });
  // The child has its own copy of the descriptor.
  if (logFd !== null) fs.closeSync(logFd);
  const pid = /** @type {number} */ (child.pid);
  /** @type {string[]} */
  const tailLines = [];
  const lastLines = () =>
    relay
      ? tailLines
      : readTail(logFile, 64 * 1024, TAIL_LINES)
          .split('\n')
          .filter(Boolean);
  const closed = new Promise((resolve) => child.once('close', resolve));
  /** @type {Promise<ExitInfo>} */
  const exit = new Promise((resolve) => {
    child.once('error', (err) => {
      proc.exitInfo = { code: null, signal: null, error: err.message };
      resolve(proc.exitInfo);
    });
    child.once('exit', (code, signal) => {
      proc.exitInfo = { code, signal };
      resolve(proc.exitInfo);
    });
  });
  /** @type {ServiceProcess} */
  const proc = {
    name: def.name,
    pid,
    port,
    url: `http://${HOST}:${port}`,
    logFile,
    stopGraceMs: stopGraceMs(env),
    exitInfo: null,
    stopping: false,
    tail: () => lastLines().map(formatLogLine).join('\n'),
    signal(sig) {
      if (proc.exitInfo) return;
      try {
        process.kill(process.platform === 'win32' ? pid : -pid, sig);
      } catch {
        try {
          child.kill(sig);
        } catch {
          // already gone
        }
      }
    },
    exited: exit.then(async (info) => {
      live.delete(proc);
      // Let the pipes drain into the log (bounded: a grandchild could hold them open).
      await within(closed, 1000);
      if (logStream) await new Promise((resolve) => logStream.end(resolve));
      return info;
    }),
  };
  /** @param {'stdout' | 'stderr'} stream */
  const onLine = (stream) => (/** @type {string} */ line) => {
    logStream?.write(`${line}\n`);
    tailLines.push(line);
    if (tailLines.length > TAIL_LINES) tailLines.shift();
    onLogLine?.(def.name, line, stream);
  };
  if (child.stdout && child.stderr) {
    eachLine(child.stdout, onLine('stdout'));
    eachLine(child.stderr, onLine('stderr'));
  }

  live.add(proc);
  return proc;
}

/** @param {ExitInfo | null} info */
function describeExit(info) {
  if (!info) return 'running';
  if (info.error) return info.error;
  return info.signal ? `signal ${info.signal}` : `exit code ${info.code}`;
}

/**
 * Waits for GET /health to answer 200; fails at once, with the log tail, if the process exits.
 * @param {ServiceProcess} proc @param {number} timeoutMs @param {AbortSignal} [abortSignal]
 */
async function waitHealthy(proc, timeoutMs, abortSignal) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (abortSignal?.aborted) throw abortError();
    if (proc.exitInfo) {
      throw new Error(
        `${proc.name} exited (${describeExit(proc.exitInfo)}) before it was healthy; log ${proc.logFile}\n` +
          `--- last lines of ${proc.name} ---\n${proc.tail()}`,
      );
    }
    if (await healthOk(proc.port)) return;
    await sleep(100);
  }
  throw new Error(
    `${proc.name} did not answer GET /health within ${Math.round(timeoutMs / 1000)} s; log ${proc.logFile}\n` +
      `--- last lines of ${proc.name} ---\n${proc.tail()}`,
  );
}

function abortError() {
  const err = new Error('start aborted');
  err.name = 'AbortError';
  return err;
}

/**
 * SIGTERM, then SIGKILL once its grace time is over; resolves when it has exited.
 * @param {ServiceProcess} proc @param {(msg: string) => void} log
 */
async function stopProcess(proc, log) {
  if (proc.exitInfo) return proc.exited;
  const graceMs = proc.stopGraceMs;
  proc.stopping = true;
  proc.signal('SIGTERM');
  const timedOut = await within(
    proc.exited.then(() => false),
    graceMs,
    true,
  );
  if (timedOut) {
    log(`${proc.name} (pid ${proc.pid}) still running ${graceMs / 1000} s after SIGTERM; sending SIGKILL`);
    proc.signal('SIGKILL');
  }
  return proc.exited;
}

module.exports = { HOST, ROOT_DIR, abortError, spawnService, stopProcess, waitHealthy };
