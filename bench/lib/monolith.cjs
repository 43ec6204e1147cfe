'use strict';
// The generator-rest monolith of bench/monolith (its own package, installed here on first use, from
// its lock file): started on a free loopback port against the bench's own MongoDB-compatible
// server, in a database of its own; `cleanups` gets what stops it. Its output goes to a log file
// beside the bench's other temporary files.

const { spawn, execFileSync } = require('node:child_process');
const { randomBytes } = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const DIR = path.resolve(__dirname, '..', 'monolith');

/** npm ci in bench/monolith when its node_modules is missing or older than its lock file. */
function installMonolith(log) {
  const lock = path.join(DIR, 'package-lock.json');
  const installed = path.join(DIR, 'node_modules', '.package-lock.json');
  if (fs.existsSync(installed) && fs.statSync(installed).mtimeMs >= fs.statSync(lock).mtimeMs) return;
  log('installing the monolith of bench/monolith (once)');
  // No install scripts: bcrypt loads its prebuilt binary without one.
  execFileSync('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund', '--workspaces=false'], {
    cwd: DIR,
    stdio: 'ignore',
    timeout: 300_000,
  });
}

/**
 * @param {{ mongoUrl: string, port: number, log: (m: string) => void, cleanups: Array<() => Promise<unknown>> }} options
 * @returns {Promise<{ url: string, masterKey: string, pid: number }>}
 */
async function startMonolith({ mongoUrl, port, log, cleanups }) {
  installMonolith(log);
  const masterKey = randomBytes(32).toString('hex');
  const logFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'restgate-monolith-')), 'monolith.log');
  const out = fs.openSync(logFile, 'a');
  const child = spawn(process.execPath, [path.join(DIR, 'app.cjs')], {
    env: {
      PATH: process.env.PATH,
      NODE_ENV: 'production',
      PORT: String(port),
      MONGODB_URL: mongoUrl,
      MONGODB_DB: `bench_monolith_${randomBytes(4).toString('hex')}`,
      MASTER_KEY: masterKey,
      JWT_SECRET: randomBytes(32).toString('hex'),
    },
    stdio: ['ignore', out, out],
  });
  fs.closeSync(out);
  cleanups.push(async () => {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    }
    fs.rmSync(path.dirname(logFile), { recursive: true, force: true });
  });
  const deadline = Date.now() + 60_000;
  while (!fs.readFileSync(logFile, 'utf8').includes('monolith listening')) {
    if (child.exitCode !== null || Date.now() > deadline)
      throw new Error(`the monolith did not start: ${fs.readFileSync(logFile, 'utf8').slice(-500)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  log(`started the generator-rest monolith (pid ${child.pid}) on http://127.0.0.1:${port}`);
  return { url: `http://127.0.0.1:${port}`, masterKey, pid: /** @type {number} */ (child.pid) };
}

module.exports = { startMonolith };
