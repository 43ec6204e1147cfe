#!/usr/bin/env node
'use strict';
// Revocation check: what does refusing ended sessions cost the gateway on an authenticated GET?
//
//   npx tsc -b && node bench/revocation-check.cjs [--requests 3000] [--entries 10000]
//
// Builds two gateways in this process from the built code (gateway/dist/app.js), on one stub
// upstream (answers 200 `{}` at once) and without rate limits, so that the check is the only
// difference: "off" has no revocation list; "on" has the real one (createRevocationList on Redis,
// loaded with `entries` ended sessions, kept fresh by pub/sub). Then sends `requests` GETs with
// a user token to each, one at a time on keep-alive connections, alternating on/off so both see
// the same machine load, after a warm-up; prints p50/p90/p99 of each and the p50 difference.
// For the choice of design it also times the alternative, one Redis round trip per request
// (ZSCORE on the same set), as the floor of what a lookup per request would add.
// Redis: REDIS_URL when set, otherwise a throw-away server (scripts/lib/backing.cjs) in a temp
// folder. Only 127.0.0.1 is contacted.

const { randomBytes } = require('node:crypto');
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const HOST = '127.0.0.1';
const log = (msg) => process.stderr.write(`[revocation-check] ${msg}\n`);

function option(name, fallback, max) {
  const i = process.argv.indexOf(`--${name}`);
  const value = i === -1 ? fallback : Number(process.argv[i + 1]);
  if (!Number.isInteger(value) || value <= 0 || value > max) throw new Error(`--${name} must be an integer in [1, ${max}]`);
  return value;
}

function percentile(samples, q) {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

function listen(server) {
  return new Promise((resolve, reject) => server.once('error', reject).listen(0, HOST, () => resolve(server.address().port)));
}

function get(port, agent, urlPath, token) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const req = http.request({ host: HOST, port, path: urlPath, agent, headers: { authorization: `Bearer ${token}` } }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode, ms: Number(process.hrtime.bigint() - started) / 1e6 }));
    });
    req.on('error', reject);
    req.end();
  });
}

async function main() {
  const requests = option('requests', 3000, 1_000_000);
  const entries = option('entries', 10_000, 10_000_000);
  for (const file of ['gateway/dist/app.js', 'shared/dist/index.js', 'shared/dist/limits/index.js']) {
    if (!fs.existsSync(path.join(ROOT, file))) throw new Error(`${file} is missing: run \`npx tsc -b\` first`);
  }
  const { createApp } = require(path.join(ROOT, 'gateway/dist/app.js'));
  const { gatewayConfigSchemaFor } = require(path.join(ROOT, 'gateway/dist/config.js'));
  const shared = require(path.join(ROOT, 'shared/dist/index.js'));
  const limits = require(path.join(ROOT, 'shared/dist/limits/index.js'));
  const { ensureRedis } = require(path.join(ROOT, 'scripts/lib/backing.cjs'));

  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'restgate-revocation-bench-'));
  const redisServer = await ensureRedis({ dataDir, log });
  const logger = shared.createLogger({ name: 'bench', level: 'warn' });
  const redis = limits.createRedis(redisServer.url, logger);
  const servers = [];
  try {
    await redis.whenReady(5_000);
    const prefix = `bench-${randomBytes(4).toString('hex')}`;
    const jwtSecret = randomBytes(32).toString('base64url');

    // Ended sessions of other users: the list the "on" gateway holds.
    for (let i = 0; i < entries; i += 1000) {
      const batch = Array.from({ length: Math.min(1000, entries - i) }, () => ({ session: randomBytes(12).toString('hex') }));
      await limits.recordRevocations(redis.client, prefix, batch, 900);
    }
    const revocations = limits.createRevocationList({ redis: redis.client, prefix, logger });
    if (!(await revocations.whenLoaded(10_000))) throw new Error('the revocation list did not load');

    const upstream = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
    servers.push(upstream);
    const upstreamPort = await listen(upstream);
    const services = [{ name: 'articles', urlEnv: 'ARTICLES_URL', port: upstreamPort }];
    const config = shared.loadConfig(gatewayConfigSchemaFor(services), {
      NODE_ENV: 'test',
      PRINCIPAL_SECRET: randomBytes(32).toString('base64url'),
      MASTER_KEY: randomBytes(32).toString('base64url'),
      JWT_SECRET: jwtSecret,
      REDIS_URL: redisServer.url,
      ARTICLES_URL: `http://${HOST}:${upstreamPort}`,
      LOG_LEVEL: 'warn',
    });
    const routes = [{ method: 'get', path: '/articles/:id', level: 'user', upstream: 'articles' }];
    const upstreams = { articles: config.ARTICLES_URL };
    const gateway = async (withList) => {
      const agents = { articles: new http.Agent({ keepAlive: true }) };
      const app = createApp({ config, logger, routes, upstreams, agents, revocations: withList ? revocations : undefined });
      const server = http.createServer(app);
      servers.push(server);
      return listen(server);
    };
    const ports = { off: await gateway(false), on: await gateway(true) };

    const jwt = require(require.resolve('jsonwebtoken', { paths: [path.join(ROOT, 'gateway')] }));
    const userId = randomBytes(12).toString('hex');
    const token = jwt.sign({ sub: userId, id: userId, role: 'user', sid: randomBytes(12).toString('hex') }, jwtSecret, {
      algorithm: 'HS256',
      issuer: config.JWT_ISSUER,
      audience: config.JWT_AUDIENCE,
      expiresIn: 900,
    });

    const agents = { off: new http.Agent({ keepAlive: true, maxSockets: 1 }), on: new http.Agent({ keepAlive: true, maxSockets: 1 }) };
    const samples = { off: [], on: [] };
    const statuses = new Set();
    const warmUp = Math.min(500, requests);
    for (let i = 0; i < warmUp + requests; i++) {
      for (const mode of i % 2 === 0 ? ['on', 'off'] : ['off', 'on']) {
        const { status, ms } = await get(ports[mode], agents[mode], `/articles/${userId}`, token);
        statuses.add(status);
        if (i >= warmUp) samples[mode].push(ms);
      }
    }
    if (statuses.size !== 1 || !statuses.has(200)) throw new Error(`expected only 200s, got ${[...statuses].join(', ')}`);

    // The alternative: one Redis round trip per request (what a lookup per request would add, at least).
    const roundTrips = [];
    const key = limits.revocationKey(prefix);
    for (let i = 0; i < warmUp + requests; i++) {
      const started = process.hrtime.bigint();
      await redis.client.zscore(key, `s:${userId}`);
      if (i >= warmUp) roundTrips.push(Number(process.hrtime.bigint() - started) / 1e6);
    }

    const row = (name, xs) =>
      `${name.padEnd(34)} p50 ${percentile(xs, 0.5).toFixed(3)} ms   p90 ${percentile(xs, 0.9).toFixed(3)} ms   p99 ${percentile(xs, 0.99).toFixed(3)} ms`;
    const added = percentile(samples.on, 0.5) - percentile(samples.off, 0.5);
    process.stdout.write(
      [
        `authenticated GET through the gateway, ${requests} requests each, ${revocations.size()} ended sessions held:`,
        row('  check off', samples.off),
        row('  check on (local list, pub/sub)', samples.on),
        `  added by the check at p50: ${added.toFixed(3)} ms (budget 0.5 ms) ${added <= 0.5 ? 'OK' : 'OVER BUDGET'}`,
        row('one Redis round trip (ZSCORE)', roundTrips),
        '',
      ].join('\n'),
    );
    await revocations.close();
    if (added > 0.5) process.exitCode = 1;
  } finally {
    for (const server of servers) server.close();
    await redis.close();
    await redisServer.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  log(err.stack || String(err));
  process.exit(1);
});
