#!/usr/bin/env node
'use strict';
// Login flood: does sign-in (Argon2id) keep the identity service's event loop free?
//
//   npx tsc -b && node bench/login-flood.cjs [--seconds 5] [--concurrency 8]
//
// Starts the built identity service (services/identity/dist/start.js) as a child on a free
// 127.0.0.1 port with the default (OWASP) Argon2id costs, creates one user, then runs `concurrency` sign-in loops
// (POST /auth, HTTP Basic, a master principal signed like the gateway does) for `seconds`, while
// timing GET /health every 20 ms. Prints health latency idle and under the flood, sign-ins/s, and
// the time of a wrong-password vs an unknown-e-mail sign-in.
//
// MongoDB: MONGODB_URL from the environment (run with the stack up), otherwise one is provisioned
// in a temporary folder with scripts/lib/backing.cjs (ensureMongo) and stopped at the end. The
// bench uses its own database and drops it. HASH_WORKERS from the environment (default: the service's own, cores − 1).

const { spawn } = require('node:child_process');
const { randomBytes } = require('node:crypto');
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const { option, request: send } = require('./lib/http.cjs');

const ROOT = path.resolve(__dirname, '..');
const START_JS = path.join(ROOT, 'services', 'identity', 'dist', 'start.js');
const HOST = '127.0.0.1';
const HEALTH_EVERY_MS = 20;
const MAX_SIGN_INS = 20_000; // a hard stop, whatever the machine
const REQUEST_TIMEOUT_MS = 10_000;

const log = (msg) => process.stderr.write(`[login-flood] ${msg}\n`);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const request = (port, agent, options) => send(port, agent, options, REQUEST_TIMEOUT_MS);

function percentile(sorted, q) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

function summary(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const f = (n) => `${n.toFixed(2)} ms`;
  return `n=${sorted.length} p50=${f(percentile(sorted, 0.5))} p95=${f(percentile(sorted, 0.95))} max=${f(sorted[sorted.length - 1] ?? NaN)}`;
}

/** GET /health every HEALTH_EVERY_MS until `until()` is false; returns latencies in ms. */
async function timeHealth(port, until) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const samples = [];
  try {
    while (until()) {
      const started = process.hrtime.bigint();
      const res = await request(port, agent, { method: 'GET', path: '/health' });
      if (res.status !== 200) throw new Error(`/health answered ${res.status}`);
      samples.push(Number(process.hrtime.bigint() - started) / 1e6);
      await sleep(HEALTH_EVERY_MS);
    }
  } finally {
    agent.destroy();
  }
  return samples;
}

async function main() {
  const seconds = option('seconds', 5, 60);
  const concurrency = option('concurrency', 8, 64);
  if (!fs.existsSync(START_JS)) throw new Error(`${path.relative(ROOT, START_JS)} is missing: run \`npx tsc -b\` first`);
  const { signPrincipal } = require('@restgate/shared');
  const { ensureMongo, ensureRedis, freePort, provisionBacking } = require('../scripts/lib/backing.cjs');
  const { MongoClient } = require('mongodb');

  const cleanups = [];
  const cleanup = async () => {
    for (const fn of cleanups.reverse()) await fn().catch((err) => log(`cleanup: ${err.message}`));
  };
  process.once('SIGINT', () => cleanup().finally(() => process.exit(130)));

  try {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'restgate-bench-'));
    cleanups.push(async () => fs.rmSync(dataDir, { recursive: true, force: true }));
    await provisionBacking({ log, rabbit: false });
    const mongo = await ensureMongo({ dataDir, log });
    cleanups.push(() => mongo.stop());
    // Identity keeps its back-off and session revocations in Redis.
    const redis = await ensureRedis({ dataDir, log });
    cleanups.push(() => redis.stop());

    const port = await freePort();
    const dbName = `bench_identity_${randomBytes(4).toString('hex')}`;
    const principalSecret = randomBytes(32).toString('hex');
    const env = {
      PATH: process.env.PATH,
      NODE_ENV: 'production',
      HOST,
      PORT: String(port),
      LOG_LEVEL: 'warn',
      MONGODB_URL: mongo.url,
      MONGODB_DB: dbName,
      // Sign-in never touches the broker; with none running, the outbox relay just keeps retrying.
      AMQP_URL: process.env.AMQP_URL || 'amqp://127.0.0.1:1',
      REDIS_URL: redis.url,
      PRINCIPAL_SECRET: principalSecret,
      JWT_SECRET: randomBytes(32).toString('hex'),
      // The timing of wrong passwords below tries one account 15 times from one address: the
      // back-off (bench:credential-flood measures it) would answer 429 from the sixth on.
      PASSWORD_BACKOFF_FREE_FAILURES: '1000',
      ...(process.env.HASH_WORKERS ? { HASH_WORKERS: process.env.HASH_WORKERS } : {}),
    };
    const child = spawn(process.execPath, [START_JS], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const keep = (chunk) => {
      output = (output + chunk.toString('utf8')).slice(-4000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const exited = new Promise((resolve) => child.once('exit', resolve));
    cleanups.push(async () => {
      const client = new MongoClient(mongo.url, { serverSelectionTimeoutMS: 2000 });
      try {
        await client.db(dbName).dropDatabase();
      } finally {
        await client.close();
      }
    });
    cleanups.push(async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      const code = await exited;
      clearTimeout(timer);
      log(`identity stopped (exit code ${code}, signal ${child.signalCode})`);
    });

    log(`identity (pid ${child.pid}) on ${HOST}:${port}, db ${dbName}, Argon2id defaults, HASH_WORKERS=${env.HASH_WORKERS}`);
    const probe = new http.Agent({ keepAlive: false });
    for (let deadline = Date.now() + 20_000; ;) {
      if (child.exitCode !== null) throw new Error(`identity exited with ${child.exitCode}:\n${output}`);
      const ok = await request(port, probe, { method: 'GET', path: '/ready' }).then(
        (r) => r.status === 200,
        () => false,
      );
      if (ok) break;
      if (Date.now() > deadline) throw new Error(`identity did not get ready in 20 s:\n${output}`);
      await sleep(100);
    }

    const master = (method, urlPath) => ({ 'x-restgate-principal': signPrincipal({ kind: 'master' }, principalSecret, method, urlPath) });
    const email = `bench.${randomBytes(4).toString('hex')}@example.test`;
    const password = 'bench-password-123';
    const form = `email=${encodeURIComponent(email)}&password=${encodeURIComponent(password)}`;
    const created = await request(port, probe, {
      method: 'POST',
      path: '/users',
      headers: {
        ...master('POST', '/users'),
        'content-type': 'application/x-www-form-urlencoded',
        'content-length': Buffer.byteLength(form),
      },
      body: form,
    });
    if (created.status !== 201) throw new Error(`POST /users answered ${created.status}: ${created.body}`);

    const floodAgent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
    const signIn = (user, pass) =>
      request(port, floodAgent, {
        method: 'POST',
        path: '/auth',
        headers: { ...master('POST', '/auth'), authorization: `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}` },
      });

    const idleEnd = Date.now() + 1000;
    const idle = await timeHealth(port, () => Date.now() < idleEnd);

    const counts = { ok: 0, failed: 0 };
    const started = Date.now();
    const floodEnd = started + seconds * 1000;
    let running = true;
    const loops = Array.from({ length: concurrency }, async () => {
      while (Date.now() < floodEnd && counts.ok + counts.failed < MAX_SIGN_INS) {
        const res = await signIn(email, password);
        if (res.status === 201) counts.ok += 1;
        else counts.failed += 1;
      }
    });
    const flooded = timeHealth(port, () => running);
    await Promise.all(loops);
    const elapsed = (Date.now() - started) / 1000;
    running = false;
    const underFlood = await flooded;

    const timeOne = async (user, pass) => {
      const t = process.hrtime.bigint();
      const res = await signIn(user, pass);
      if (res.status !== 401) throw new Error(`expected 401, got ${res.status}`);
      return Number(process.hrtime.bigint() - t) / 1e6;
    };
    const wrong = [];
    const unknown = [];
    for (let i = 0; i < 15; i += 1) {
      wrong.push(await timeOne(email, 'wrong-password-123'));
      unknown.push(await timeOne(`nobody.${i}@example.test`, password));
    }
    floodAgent.destroy();
    probe.destroy();

    const median = (xs) =>
      percentile(
        [...xs].sort((a, b) => a - b),
        0.5,
      ).toFixed(1);
    process.stdout.write(
      [
        `login flood: ${concurrency} loops × ${elapsed.toFixed(1)} s, Argon2id defaults, HASH_WORKERS=${env.HASH_WORKERS}, ${os.cpus().length} CPUs`,
        `  sign-ins: ${counts.ok} ok, ${counts.failed} failed, ${(counts.ok / elapsed).toFixed(1)} /s`,
        `  GET /health idle:        ${summary(idle)}`,
        `  GET /health under flood: ${summary(underFlood)}`,
        `  401 median: wrong password ${median(wrong)} ms, unknown e-mail ${median(unknown)} ms (15 each, sequential)`,
        '',
      ].join('\n'),
    );
    if (counts.failed > 0) process.exitCode = 1;
  } finally {
    await cleanup();
  }
}

main().catch((err) => {
  log(`error: ${err.stack || err.message}`);
  process.exitCode = 1;
});
