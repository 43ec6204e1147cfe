#!/usr/bin/env node
'use strict';
// The gateway alone in front of a stub upstream: its CPU per proxied request without a service,
// a database or their wake-ups in the way, next to the floors (bench/bare-proxy.cjs).
//
//   npx tsc -b && npm run bench:gateway-alone [-- --seconds 5] [--rounds 2] [--paced 5] [--profile <dir>]
//
// - `hop`: GET /articles/not-an-id at 10 connections; the stub answers a 404 problem at once.
//   Rounds alternate the gateway and the floors (bench/lib/floors.cjs: undici's pool; fastify +
//   undici, the gateway's stack; the same with the gateway's unavoidable work written plainly;
//   bare node:http; node:http + http-proxy-middleware and Express + http-proxy-middleware, the
//   stacks the gateway ran on before).
// - `slow`: POST /auth with HTTP Basic and the master key at 8 connections; the stub answers after
//   350 ms, as a sign-in does: the gateway's CPU per request when it waits between messages.
// - `paced` (with --paced N): GET /articles/not-an-id at 200 req/s for N seconds, one request at a
//   time per tick, to the stub directly and through the gateway and each floor: the p50 each adds
//   when nothing queues. The stub runs in a process of its own, so the client's event loop does
//   not also serve it.
// CPU is the gateway's (or the floor's) own, from /proc. --profile writes the gateway's CPU
// profile there (bench/profile-top.cjs summarises it), from the second second on.
// Everything runs on 127.0.0.1: a Redis of its own (scripts/lib/backing.cjs), the stub and the
// gateway on free ports, all stopped at the end.

const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const autocannon = require('autocannon');
const backing = require('../scripts/lib/backing.cjs');
const { FLOORS, cpuMicros, startFloor, waitForAnswer } = require('./lib/floors.cjs');
const { option, pacedP50 } = require('./lib/http.cjs');

const ROOT = path.resolve(__dirname, '..');
const HOST = '127.0.0.1';
const SIGN_IN_MS = 350;
const log = (msg) => process.stderr.write(`[gateway-alone] ${msg}\n`);

/** The stub service, in a process of its own: a small 404 problem, at once or after `delayMs`. */
async function startStub(delayMs) {
  const port = await backing.freePort();
  const source = `
    const body = JSON.stringify({ type: 'urn:restgate:problem:not_found', title: 'Not found', status: 404, code: 'not_found' });
    require('node:http').createServer((req, res) => {
      req.resume();
      req.on('end', () => setTimeout(() => {
        res.writeHead(404, { 'content-type': 'application/problem+json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
        res.end(body);
      }, ${Number(delayMs)}));
    }).listen(${port}, '${HOST}');`;
  const child = spawn(process.execPath, ['-e', source], { stdio: 'ignore' });
  const url = `http://${HOST}:${port}`;
  await waitForAnswer(url);
  return { url, stop: () => child.kill() };
}

/** A process with its output in `logFile`, as the stack's processes write theirs. */
function startProcess(args, env, logFile) {
  const out = fs.openSync(logFile, 'a');
  return spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', out, out] });
}

async function measure(pid, base, request, seconds) {
  await autocannon({ ...request, url: `${base}${request.path}`, duration: 1 }); // warm-up
  const before = cpuMicros(pid);
  const result = await autocannon({ ...request, url: `${base}${request.path}`, duration: seconds });
  const n = result.requests.total;
  const statuses = Object.keys(result.statusCodeStats ?? {}).join(',');
  if (statuses !== '404') throw new Error(`expected only 404s from the stub, got ${statuses}`);
  return { rps: n / seconds, micros: (cpuMicros(pid) - before) / n };
}

async function main() {
  const seconds = option('seconds', 5, 60);
  const rounds = option('rounds', 2, 10);
  const pacedSeconds = process.argv.includes('--paced') ? option('paced', 5, 60) : 0;
  const profileAt = process.argv.indexOf('--profile');
  const profileDir = profileAt === -1 ? undefined : path.resolve(process.argv[profileAt + 1]);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'restgate-gateway-alone-'));
  const children = [];
  const redis = await backing.ensureRedis({ dataDir, log, env: {} });
  const quick = await startStub(0);
  const slow = await startStub(SIGN_IN_MS);
  const masterKey = 'bench-master-key-'.padEnd(48, 'k');
  try {
    const gatewayEnv = (upstream) => ({
      NODE_ENV: 'development',
      MASTER_KEY: masterKey,
      JWT_SECRET: 'bench-jwt-secret-'.padEnd(48, 'j'),
      PRINCIPAL_SECRET: 'bench-principal-secret-'.padEnd(48, 'p'),
      IDENTITY_URL: upstream,
      ARTICLES_URL: upstream,
      REDIS_URL: redis.url,
      REDIS_KEY_PREFIX: `gateway-alone-${process.pid}`,
      // Far above what loopback sends: the bench measures the work, not 429s.
      RATE_LIMIT_ALL: '100000000/60',
      RATE_LIMIT_CREDENTIALS: '100000000/60',
      ...(profileDir && {
        NODE_OPTIONS: `--require ${path.join(__dirname, 'cpu-profile.cjs')}`,
        RESTGATE_CPU_PROFILE_DIR: profileDir,
        RESTGATE_CPU_PROFILE_DELAY_MS: '2000',
      }),
    });
    /** Measures `request` against `target` ({ pid, url, stop }), then stops it. */
    const run = async (label, target, request) => {
      let m;
      try {
        m = await measure(target.pid, target.url, request, seconds);
      } finally {
        await target.stop();
      }
      console.log(`| ${label} | ${Math.round(m.rps)} | ${Math.round(m.micros)} | ${os.loadavg()[0].toFixed(2)} |`);
    };
    const gateway = async (upstream) => {
      const port = await backing.freePort();
      const child = startProcess(
        [path.join(ROOT, 'gateway', 'dist', 'start.js')],
        { ...gatewayEnv(upstream), PORT: String(port) },
        path.join(dataDir, 'process.log'),
      );
      children.push(child);
      const url = `http://${HOST}:${port}`;
      await waitForAnswer(`${url}/health`);
      const stop = () => {
        child.kill('SIGTERM');
        return new Promise((resolve) => child.once('exit', resolve));
      };
      return { pid: child.pid, url, stop };
    };
    const hop = { path: '/articles/not-an-id', connections: 10 };
    const signIn = {
      path: '/auth',
      method: 'POST',
      connections: 8,
      headers: {
        'content-type': 'application/json',
        authorization: `Basic ${Buffer.from('someone@example.test:a-password').toString('base64')}`,
      },
      body: JSON.stringify({ access_token: masterKey }),
    };
    console.log('| what | req/s | CPU µs per request | load |');
    console.log('|---|---|---|---|');
    for (let round = 0; round < rounds; round += 1) {
      await run('hop: gateway', await gateway(quick.url), hop);
      if (!profileDir) {
        for (const [kind, label] of FLOORS) await run(`hop: ${label}`, await startFloor(kind, quick.url), hop);
        await run(`slow: gateway, sign-in-like (answers after ${SIGN_IN_MS} ms)`, await gateway(slow.url), signIn);
      }
    }
    if (pacedSeconds > 0) {
      console.log('\n| paced, 200 req/s | p50 direct ms | p50 through it ms | added ms | load |');
      console.log('|---|---|---|---|---|');
      /** @type {Array<[string, () => Promise<any>]>} */
      const targets = [
        ['gateway', () => gateway(quick.url)],
        ...FLOORS.map(([kind, label]) => /** @type {[string, () => Promise<any>]} */ ([label, () => startFloor(kind, quick.url)])),
      ];
      for (let round = 0; round < rounds; round += 1) {
        for (const [label, start] of targets) {
          const target = await start();
          try {
            const paced = { path: hop.path, rate: 200, seconds: pacedSeconds, expect: 404 };
            await pacedP50(target.url, { ...paced, seconds: 1 }); // warm-up
            const direct = await pacedP50(quick.url, paced);
            const through = await pacedP50(target.url, paced);
            const cells = [direct, through, through - direct].map((ms) => ms.toFixed(3));
            console.log(`| ${label} | ${cells.join(' | ')} | ${os.loadavg()[0].toFixed(2)} |`);
          } finally {
            await target.stop();
          }
        }
      }
    }
  } finally {
    for (const child of children) child.kill('SIGKILL');
    quick.stop();
    slow.stop();
    await redis.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
