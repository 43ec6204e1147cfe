'use strict';
// Installs the npm dependencies when they are missing or stale, and builds the TypeScript.
// Node built-ins only: this runs on a fresh clone, before any `npm install`.

const { spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const ROOT_DIR = path.resolve(__dirname, '..', '..');
const isWindows = process.platform === 'win32';

function mtimeMs(file) {
  try {
    return fs.statSync(file).mtimeMs;
  } catch {
    return null;
  }
}

/**
 * Runs a command with inherited stdio; resolves with its exit code (128 + n when a signal ended
 * it). A SIGINT/SIGTERM sent to us only (not to the whole process group) is passed on, so the
 * child never outlives us.
 */
function run(cmd, args, { cwd = ROOT_DIR, env = process.env } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env, stdio: 'inherit', shell: isWindows });
    const forward = (sig) => child.kill(sig);
    process.on('SIGINT', forward);
    process.on('SIGTERM', forward);
    const done = () => {
      process.off('SIGINT', forward);
      process.off('SIGTERM', forward);
    };
    child.once('error', (err) => {
      done();
      reject(err);
    });
    child.once('exit', (code, signal) => {
      done();
      const signalNumbers = { SIGINT: 2, SIGKILL: 9, SIGTERM: 15 };
      resolve(code ?? 128 + (signalNumbers[signal] ?? 1));
    });
  });
}

/**
 * Runs a binary of the project's own devDependencies (tsc, eslint, jest): straight from
 * node_modules/.bin when it is there, which saves npx's start-up, otherwise through
 * `npx --no`, which fails rather than prompting to download something.
 */
function runBin(name, args, options = {}) {
  const local = path.join(options.cwd ?? ROOT_DIR, 'node_modules', '.bin', isWindows ? `${name}.cmd` : name);
  if (fs.existsSync(local)) return run(local, args, options);
  return run('npx', ['--no', '--', name, ...args], options);
}

class StepError extends Error {
  constructor(what, exitCode) {
    super(`${what} failed (exit code ${exitCode})`);
    this.name = 'StepError';
    this.exitCode = exitCode;
  }
}

/** True when node_modules is missing or older than package-lock.json (someone pulled new deps). */
function needsInstall(rootDir = ROOT_DIR) {
  const installed = mtimeMs(path.join(rootDir, 'node_modules', '.package-lock.json'));
  if (installed === null) return true;
  const lock = mtimeMs(path.join(rootDir, 'package-lock.json'));
  return lock !== null && lock > installed;
}

/**
 * `npm ci` (or `npm install` without a lock file) when needed, then `tsc -b` unless
 * `build: false` (incremental, so a no-op build costs about a second).
 * Throws a StepError carrying the failing command's exit code.
 */
async function ensureInstalled({ rootDir = ROOT_DIR, build = true, log = defaultLog } = {}) {
  if (needsInstall(rootDir)) {
    const hasLock = fs.existsSync(path.join(rootDir, 'package-lock.json'));
    const args = hasLock ? ['ci', '--no-audit', '--no-fund'] : ['install', '--no-audit', '--no-fund'];
    log(`installing dependencies: npm ${args[0]}`);
    const code = await run('npm', args, { cwd: rootDir });
    if (code !== 0) throw new StepError(`npm ${args[0]}`, code);
  }
  if (build) {
    log('building: tsc -b');
    const code = await runBin('tsc', ['-b'], { cwd: rootDir });
    if (code !== 0) throw new StepError('tsc -b', code);
  }
}

// The headless browser the docs-page tests drive: Debian's chromium (the machines here have no
// other way to get a browser build).
const CHROMIUM_PATH = '/usr/bin/chromium';

function defaultLog(msg) {
  process.stderr.write(`[restgate] ${msg}\n`);
}

module.exports = { CHROMIUM_PATH, ensureInstalled, needsInstall, run, runBin, StepError, ROOT_DIR };
