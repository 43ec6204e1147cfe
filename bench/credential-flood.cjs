#!/usr/bin/env node
'use strict';
// Credential flood: do the abuse limits keep the stack responsive under a password-guessing flood?
//
//   npx tsc -b && node bench/credential-flood.cjs [--seconds 10] [--concurrency 32]
//
// Starts the built stack (scripts/lib/stack.cjs: gateway, identity, articles, mailer) on free
// 127.0.0.1 ports, with MongoDB, RabbitMQ and Redis from scripts/lib/backing.cjs (their *_URL from
// the environment when set, otherwise throw-away servers in a temporary folder), the default Argon2id costs,
// and TRUSTED_PROXIES=loopback. It creates one user, then for `seconds`:
// - `concurrency` loops send PUT /users/me/password with the user's e-mail and wrong passwords
//   (and a token of the user, which the route needs besides Basic) from 127.0.0.1, as fast as the
//   answers come;
// - GET /health on the gateway every 20 ms;
// - the legitimate owner signs in (POST /auth, right password) every 250 ms from another client
//   address (X-Forwarded-For: 198.51.100.77, believed from the loopback proxy).
// Prints /health p50/p99, the legitimate sign-ins' p50 and statuses, the flood's statuses and
// share of 429s, and how many password hashes identity actually computed (its metrics).
// Only 127.0.0.1 is ever contacted.

const { randomBytes } = require('node:crypto');
const http = require('node:http');
const os = require('node:os');
const { option, request: send } = require('./lib/http.cjs');
const { startBenchStack } = require('./lib/bench-stack.cjs');

const HOST = '127.0.0.1';
const LEGIT_ADDRESS = '198.51.100.77';
const REQUEST_TIMEOUT_MS = 15_000;

const log = (msg) => process.stderr.write(`[credential-flood] ${msg}\n`);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const request = (port, agent, options) => send(port, agent, options, REQUEST_TIMEOUT_MS);

const basic = (user, pass) => `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;

function percentile(samples, q) {
  const sorted = [...samples].sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

const countBy = (xs) => Object.fromEntries([...new Set(xs)].sort().map((x) => [x, xs.filter((y) => y === x).length]));

async function hashesComputed(port) {
  const res = await request(port, undefined, { method: 'GET', path: '/metrics' });
  const line = res.body.split('\n').find((l) => l.startsWith('identity_password_hashes_completed'));
  return line ? Number(line.split(' ').at(-1)) : NaN;
}

/** GET /health every 20 ms until `end`, from a worker thread; resolves with the latencies in ms. */
function timeHealthInThread(port, end) {
  const code = `
    const http = require('node:http');
    const { parentPort, workerData } = require('node:worker_threads');
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const once = () => new Promise((resolve, reject) => {
      const t = process.hrtime.bigint();
      http.get({ host: '${HOST}', port: workerData.port, path: '/health', agent }, (res) => {
        res.resume();
        res.on('end', () => (res.statusCode === 200 ? resolve(Number(process.hrtime.bigint() - t) / 1e6) : reject(new Error('/health answered ' + res.statusCode))));
      }).on('error', reject);
    });
    (async () => {
      const samples = [];
      while (Date.now() < workerData.end) {
        samples.push(await once());
        await new Promise((r) => setTimeout(r, 20));
      }
      agent.destroy();
      parentPort.postMessage(samples);
    })().catch((err) => { throw err; });
  `;
  const { Worker } = require('node:worker_threads');
  const worker = new Worker(code, { eval: true, workerData: { port, end } });
  return new Promise((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
}

async function main() {
  const seconds = option('seconds', 10, 120);
  const concurrency = option('concurrency', 32, 256);

  const cleanups = [];
  const cleanup = async () => {
    for (const fn of cleanups.reverse()) await fn().catch((err) => log(`cleanup: ${err.message}`));
  };
  process.once('SIGINT', () => cleanup().finally(() => process.exit(130)));

  try {
    const { ports, masterKey } = await startBenchStack({ cleanups, log, env: { LOG_LEVEL: 'warn', TRUSTED_PROXIES: 'loopback' } });
    const suffix = randomBytes(4).toString('hex');
    const gw = ports.gateway;
    log(`stack up: gateway ${HOST}:${gw}`);

    const email = `owner.${suffix}@example.test`;
    const password = 'the-right-password-1';
    const form = `email=${encodeURIComponent(email)}&password=${encodeURIComponent(password)}&access_token=${masterKey}`;
    const created = await request(gw, undefined, {
      method: 'POST',
      path: '/users',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(form) },
      body: form,
    });
    if (created.status !== 201) throw new Error(`POST /users answered ${created.status}: ${created.body}`);
    const signInForm = `access_token=${masterKey}`;
    const signedIn = await request(gw, undefined, {
      method: 'POST',
      path: '/auth',
      headers: {
        authorization: basic(email, password),
        'content-type': 'application/x-www-form-urlencoded',
        'content-length': Buffer.byteLength(signInForm),
      },
      body: signInForm,
    });
    if (signedIn.status !== 201) throw new Error(`POST /auth answered ${signedIn.status}: ${signedIn.body}`);
    const userToken = JSON.parse(signedIn.body).token;
    const hashesBefore = await hashesComputed(ports.identity);

    const end = Date.now() + seconds * 1000;
    const floodAgent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
    const flood = [];
    const loops = Array.from({ length: concurrency }, async (_, i) => {
      for (let n = 0; Date.now() < end; n += 1) {
        const body = JSON.stringify({ password: 'attacker-new-password', access_token: userToken });
        const res = await request(gw, floodAgent, {
          method: 'PUT',
          path: '/users/me/password',
          headers: {
            authorization: basic(email, `guess-${i}-${n}`),
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
          },
          body,
        }).catch((err) => ({ status: `error: ${err.message}` }));
        flood.push(res.status);
      }
    });
    // Timed from a thread of its own: the flood's answers keep this thread's event loop busy,
    // which would add the client's own queueing to the server's latency.
    const healthLoop = timeHealthInThread(gw, end);
    const legit = [];
    const legitStatuses = [];
    const legitLoop = (async () => {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      await sleep(1_000); // let the flood reach its steady state first
      while (Date.now() < end) {
        const t = process.hrtime.bigint();
        const res = await request(gw, agent, {
          method: 'POST',
          path: '/auth',
          headers: {
            authorization: basic(email, password),
            'x-forwarded-for': LEGIT_ADDRESS,
            'content-type': 'application/x-www-form-urlencoded',
            'content-length': Buffer.byteLength(`access_token=${masterKey}`),
          },
          body: `access_token=${masterKey}`,
        });
        legit.push(Number(process.hrtime.bigint() - t) / 1e6);
        legitStatuses.push(res.status);
        await sleep(250);
      }
      agent.destroy();
    })();
    const [health] = await Promise.all([healthLoop, ...loops, legitLoop]);
    floodAgent.destroy();
    const hashesAfter = await hashesComputed(ports.identity);

    const f = (n) => `${n.toFixed(1)} ms`;
    const limited = flood.filter((s) => s === 429).length;
    process.stdout.write(
      [
        `credential flood: ${concurrency} connections × ${seconds} s of PUT /users/me/password (wrong passwords), Argon2id defaults, ${os.cpus().length} CPUs`,
        `  flood answers: ${flood.length} ${JSON.stringify(countBy(flood))}; 429s: ${((100 * limited) / Math.max(1, flood.length)).toFixed(1)} %`,
        `  GET /health (gateway): n=${health.length} p50=${f(percentile(health, 0.5))} p99=${f(percentile(health, 0.99))} max=${f(Math.max(...health))}`,
        `  legitimate sign-in from ${LEGIT_ADDRESS}: n=${legit.length} p50=${f(percentile(legit, 0.5))} max=${f(Math.max(...legit))} statuses ${JSON.stringify(countBy(legitStatuses))}`,
        `  password hashes computed by identity during the flood: ${hashesAfter - hashesBefore}`,
        '',
      ].join('\n'),
    );
  } finally {
    await cleanup();
  }
}

main().catch((err) => {
  log(`error: ${err.stack || err.message}`);
  process.exitCode = 1;
});
