'use strict';
// The docker engine the container stages run on: started when none answers (and then stopped at
// the end, by its pid), used and left running otherwise. And the one way those stages run a
// command: bounded in time, its stderr in the error.

const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..', '..');
const MINUTE = 60_000;
// Per user, outside the clone: what provision.sh builds and dockerd's log.
const CACHE =
  process.env.RESTGATE_DOCKER_CACHE || path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'restgate', 'docker');

const seconds = (ms) => `${Math.round(ms / 1000)} s`;

class Failure extends Error {}

/** `step(title, fn)` logs the title, runs fn and adds its duration to `timings` (for the closing line). */
function timedSteps(log) {
  const timings = [];
  const step = async (title, fn) => {
    const t = Date.now();
    log(`${title}…`);
    const result = await fn();
    timings.push(`${title}: ${seconds(Date.now() - t)}`);
    return result;
  };
  return { step, timings };
}

/** Runs a command to its end within `timeoutMs`; resolves with its output, rejects on a non-zero exit. */
function exec(cmd, args, { timeoutMs = 10 * MINUTE, inherit = false, env = process.env, cwd = ROOT } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env, stdio: inherit ? 'inherit' : ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout?.on('data', (d) => (out += d));
    child.stderr?.on('data', (d) => (err += d));
    const timer = setTimeout(() => {
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
    }, timeoutMs);
    child.once('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(out);
      else
        reject(
          new Failure(
            `${cmd} ${args.join(' ')} ${signal ? `was stopped (${signal}, limit ${seconds(timeoutMs)})` : `exited ${code}`}${err ? `:\n${err.trim()}` : ''}`,
          ),
        );
    });
  });
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function engineAnswers() {
  return exec('docker', ['info', '--format', '{{.ServerVersion}}'], { timeoutMs: 20_000 }).then(
    (v) => v.trim(),
    () => null,
  );
}

/** Starts dockerd unless an engine answers; returns { pid, version } (pid null when not ours). */
async function startEngine(log) {
  const running = await engineAnswers();
  if (running) {
    log(`using the docker engine already running (${running}); it stays running`);
    return { pid: null, version: running };
  }
  if (process.getuid?.() !== 0) throw new Failure('no docker engine answers, and starting dockerd needs root');
  fs.mkdirSync(CACHE, { recursive: true });
  const logFile = path.join(CACHE, 'dockerd.log');
  const fd = fs.openSync(logFile, 'a');
  const child = spawn('dockerd', ['--storage-driver=overlay2'], { detached: true, stdio: ['ignore', fd, fd] });
  fs.closeSync(fd);
  child.unref();
  let exited = false;
  child.once('exit', () => (exited = true));
  const deadline = Date.now() + MINUTE;
  while (Date.now() < deadline && !exited) {
    const version = await engineAnswers();
    if (version) {
      log(`started dockerd ${version} (pid ${child.pid}, log ${logFile})`);
      return { pid: child.pid, version };
    }
    await sleep(1000);
  }
  if (!exited && child.pid !== undefined) process.kill(child.pid, 'SIGTERM');
  throw new Failure(`dockerd did not answer within a minute; see ${logFile}`);
}

async function stopEngine(pid, log) {
  if (!pid) return;
  const alive = () => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  if (!alive()) return;
  process.kill(pid, 'SIGTERM');
  const deadline = Date.now() + MINUTE;
  while (alive() && Date.now() < deadline) await sleep(500);
  if (alive()) throw new Failure(`dockerd (pid ${pid}) was still running a minute after SIGTERM`);
  log(`stopped dockerd (pid ${pid})`);
}

/** Whether `port` on `host` can be bound now (nothing else listens there). */
function portFree(host, port) {
  const net = require('node:net');
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

async function imagePresent(image) {
  return exec('docker', ['image', 'inspect', image], { timeoutMs: 20_000 }).then(
    () => true,
    () => false,
  );
}

/**
 * `standin` or `real`, from RESTGATE_CONTAINER_IMAGES (auto, standin, real) and, for auto, whether
 * the engine already has every one of `images` (the real ones a stack would run).
 */
async function chooseImages(images) {
  const wanted = (process.env.RESTGATE_CONTAINER_IMAGES || 'auto').toLowerCase();
  if (!['auto', 'standin', 'real'].includes(wanted))
    throw new Failure(`RESTGATE_CONTAINER_IMAGES must be auto, standin or real, not ${wanted}`);
  if (wanted !== 'auto') return wanted;
  for (const image of images) if (!(await imagePresent(image))) return 'standin';
  return 'real';
}

module.exports = {
  CACHE,
  chooseImages,
  exec,
  Failure,
  imagePresent,
  MINUTE,
  portFree,
  ROOT,
  seconds,
  sleep,
  startEngine,
  stopEngine,
  timedSteps,
};
