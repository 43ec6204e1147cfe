'use strict';
// Part 8 of `npm run bench`: webhooks from one webhooks replica to a receiver on 127.0.0.1.
//  a) throughput: 100 endpoints subscribed to articles.created; a burst of articles; deliveries
//     per second from the first write to the last delivery. Two floors, in the same run: this
//     process POSTing the same bodies to the same receiver, 100 paths, the same concurrency (5 per
//     endpoint) with undici (what the machine and the receiver alone allow); and the database
//     work no delivery can skip, through the service's own repository on the stack's database:
//     each event's deliveries written, then each one's attempt logged (one insert and one update
//     a delivery, no HTTP, no lease, no broker).
//  b) isolation: articles at a fixed rate, write-to-delivery latency p50/p99 at the 99 endpoints
//     that stay up; then the same with the 100th endpoint's URL on a port where nothing listens
//     (connection refused, so every delivery to it fails and is retried); A/B rounds, so the
//     machine's noise hits both alike. The ratio of the two p99s is what the issue bounds (≤ 1.2).
// The load generator and the receiver are this process (node:http), on 127.0.0.1 only.

const http = require('node:http');
const net = require('node:net');
const { randomBytes } = require('node:crypto');

const { paced, percentile, sleep } = require('./pacing.cjs');
const ENDPOINTS = 100;
const IN_FLIGHT = 5;

/** @param {string} base @param {string} method @param {string} path @param {{ token?: string, body?: unknown }} [options] */
async function call(base, method, path, { token, body } = {}) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/** The receiver: 204 to everything; per delivery its path, webhook-id, and the write's send time (in the title). */
async function startReceiver() {
  const seen = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const match = /"title":"wh (\d+)/.exec(body);
      seen.push({ path: req.url, id: req.headers['webhook-id'], at: Date.now(), sentAt: match ? Number(match[1]) : NaN });
      res.writeHead(204).end();
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    seen,
    close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(resolve))),
  };
}

/** A port on 127.0.0.1 where nothing listens: connecting to it is refused at once. */
async function refusingPort() {
  const server = net.createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Writes `count` articles, `concurrency` at a time, each titled with its send time. */
async function burst(write, count, concurrency) {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        next += 1;
        await write(Date.now());
      }
    }),
  );
}

async function until(what, check, ms) {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`webhooks bench: ${what} not within ${ms} ms`);
    await sleep(20);
  }
}

/** The floor of (a): the same POSTs from this process, `IN_FLIGHT` per path, with undici. */
async function floorRate(receiver, bodies) {
  const { Agent, request } = require('undici');
  const agent = new Agent({ keepAliveTimeout: 4_000 });
  const started = Date.now();
  await Promise.all(
    Array.from({ length: ENDPOINTS }, (_, e) =>
      Promise.all(
        Array.from({ length: IN_FLIGHT }, async (_, lane) => {
          for (let i = lane; i < bodies.length; i += IN_FLIGHT) {
            const res = await request(receiver.url(`/floor${e}`), {
              method: 'POST',
              dispatcher: agent,
              headers: { 'content-type': 'application/json', 'webhook-id': `f${e}-${i}` },
              body: bodies[i],
            });
            await res.body.dump();
          }
        }),
      ),
    ),
  );
  const elapsed = (Date.now() - started) / 1000;
  await agent.close();
  return (bodies.length * ENDPOINTS) / elapsed;
}

/** The database floor of (a): the service's DeliveryRepository (its build) on a database of its own. */
async function databaseFloor(mongoUrl, events) {
  const { MongoClient, ObjectId } = require('mongodb');
  const { DeliveryRepository } = require('../../services/webhooks/dist/data/delivery.repository.js');
  // The services' own pool size (shared/src/data/mongo.ts): FerretDB stalls when a hundred
  // statements reach it at once, and the service never sends it more than this many.
  const client = await new MongoClient(mongoUrl, { maxPoolSize: 20 }).connect();
  const db = client.db(`bench_webhooks_floor_${randomBytes(4).toString('hex')}`);
  try {
    const repo = new DeliveryRepository(db, randomBytes(32).toString('hex'));
    await repo.ensureIndexes();
    const endpoints = Array.from({ length: ENDPOINTS }, () => new ObjectId());
    const body = JSON.stringify({
      type: 'articles.created',
      timestamp: new Date().toISOString(),
      data: { id: 'x', title: `wh ${Date.now()}` },
    });
    const started = Date.now();
    const logged = [];
    for (let e = 0; e < events; e += 1) {
      const recordId = new ObjectId().toHexString();
      const now = new Date();
      await repo.add(
        endpoints.map((endpointId) => ({
          endpointId,
          eventId: `${recordId}:1`,
          type: 'articles.created',
          orderKey: `${endpointId}|articles:${recordId}`,
          seq: 1,
          body,
          requestId: 'bench',
        })),
        now,
      );
      const written = await repo.collection.find({ eventId: `${recordId}:1` }, { projection: { _id: 1 } }).toArray();
      for (const { _id } of written)
        logged.push(repo.record(_id, null, { at: new Date(), status: 204, durationMs: 1, response: '' }, 'succeeded', null));
      // The service holds at most 5 attempts per endpoint in flight: as many writes at once here.
      if (logged.length >= IN_FLIGHT * ENDPOINTS) await Promise.all(logged.splice(0));
    }
    await Promise.all(logged);
    return (events * ENDPOINTS) / ((Date.now() - started) / 1000);
  } finally {
    await db.dropDatabase().catch(() => undefined);
    await client.close();
  }
}

async function webhooksBench({ gateway, masterKey, mongoUrl, token, seconds, burstSize, rate, log, row }) {
  const receiver = await startReceiver();
  const email = `bench.admin.${randomBytes(4).toString('hex')}@example.test`;
  const signUp = await call(gateway, 'POST', '/users', {
    body: { email, password: 'bench-password-123', role: 'admin', access_token: masterKey },
  });
  if (signUp.status !== 201) throw new Error(`admin sign-up answered ${signUp.status}`);
  const auth = await fetch(`${gateway}/auth`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Basic ${Buffer.from(`${email}:bench-password-123`).toString('base64')}`,
    },
    body: JSON.stringify({ access_token: masterKey }),
  });
  const admin = /** @type {{ token: string }} */ (await auth.json()).token;
  const ids = [];
  try {
    for (let e = 0; e < ENDPOINTS; e += 1) {
      const res = await call(gateway, 'POST', '/webhooks', {
        token: admin,
        body: { url: receiver.url(`/e${e}`), events: ['articles.created'] },
      });
      if (res.status !== 201) throw new Error(`POST /webhooks answered ${res.status}: ${JSON.stringify(res.body)}`);
      ids.push(res.body.id);
    }
    const write = async (sentAt) => {
      const res = await call(gateway, 'POST', '/articles', {
        token,
        body: { title: `wh ${sentAt}`, content: 'Webhook benchmark article.' },
      });
      if (res.status !== 201) throw new Error(`POST /articles answered ${res.status}`);
    };
    const delivered = () => receiver.seen.filter((s) => s.path.startsWith('/e')).length;

    // Warm-up: one article to every endpoint.
    await write(Date.now());
    await until('the warm-up deliveries', () => delivered() >= ENDPOINTS, 60_000);

    // (a) throughput, then its floor.
    const before = delivered();
    const started = Date.now();
    await burst(write, burstSize, 4);
    await until('the burst deliveries', () => delivered() >= before + burstSize * ENDPOINTS, 300_000);
    const rate_ = (burstSize * ENDPOINTS) / ((Date.now() - started) / 1000);
    const sample = receiver.seen.length;
    const bodies = Array.from({ length: burstSize }, (_, i) =>
      JSON.stringify({
        type: 'articles.created',
        timestamp: new Date().toISOString(),
        data: { id: String(i), title: `wh ${Date.now()}`, content: 'Webhook benchmark article.' },
      }),
    );
    const floor = await floorRate(receiver, bodies);
    receiver.seen.splice(sample);
    const dbFloor = await databaseFloor(mongoUrl, burstSize);
    row(
      '8 webhooks',
      `deliveries/s, ${ENDPOINTS} endpoints, a burst of ${burstSize} articles (${burstSize * ENDPOINTS} deliveries)`,
      `**${rate_.toFixed(0)}**`,
      `load ${require('node:os').loadavg()[0].toFixed(2)}`,
    );
    row(
      '8 webhooks',
      `floor: this process POSTing the same to the same receiver (${IN_FLIGHT} per path), deliveries/s`,
      `${floor.toFixed(0)}`,
      `service / floor ${(rate_ / floor).toFixed(2)}×`,
    );
    row(
      '8 webhooks',
      'floor: the database work alone (each delivery written, then its attempt logged), deliveries/s',
      `${dbFloor.toFixed(0)}`,
      `service / floor ${(rate_ / dbFloor).toFixed(2)}×`,
    );

    // (b) isolation: A/B rounds, all up and one down.
    const refused = await refusingPort();
    const round = async (down) => {
      await call(gateway, 'PATCH', `/webhooks/${ids[ENDPOINTS - 1]}`, {
        token: admin,
        body: { url: down ? `http://127.0.0.1:${refused}/down` : receiver.url(`/e${ENDPOINTS - 1}`) },
      });
      // A change reaches every replica's deliveries within a second.
      await sleep(1_200);
      const from = receiver.seen.length;
      const sent = await paced(rate, seconds, write);
      const expected = sent * (ENDPOINTS - 1);
      const mine = () =>
        receiver.seen.slice(from).filter((s) => s.path !== `/e${ENDPOINTS - 1}` && s.path.startsWith('/e') && !Number.isNaN(s.sentAt));
      await until(`the deliveries of ${sent} articles`, () => mine().length >= expected, 120_000);
      const latencies = mine()
        .map((s) => s.at - s.sentAt)
        .sort((a, b) => a - b);
      return { p50: percentile(latencies, 50), p99: percentile(latencies, 99), n: latencies.length };
    };
    const up = [];
    const down = [];
    for (let r = 0; r < 2; r += 1) {
      up.push(await round(false));
      down.push(await round(true));
    }
    const mean = (xs, k) => xs.reduce((a, x) => a + x[k], 0) / xs.length;
    row(
      '8 webhooks',
      `${rate} articles/s (${rate * (ENDPOINTS - 1)} deliveries/s to 99 endpoints), all up: p50 / p99 ms`,
      `${mean(up, 'p50').toFixed(1)} / ${mean(up, 'p99').toFixed(1)}`,
      `${up.map((x) => x.n).join(' + ')} deliveries`,
    );
    row(
      '8 webhooks',
      `the same with the 100th endpoint refusing connections: p50 / p99 ms`,
      `${mean(down, 'p50').toFixed(1)} / ${mean(down, 'p99').toFixed(1)}`,
      `${down.map((x) => x.n).join(' + ')} deliveries`,
    );
    row(
      '8 webhooks',
      'p99 one down / all up',
      `**${(mean(down, 'p99') / mean(up, 'p99')).toFixed(2)}×**`,
      `rounds: ${up.map((u, i) => `${u.p99}/${down[i].p99}`).join(', ')} ms`,
    );
  } finally {
    for (const id of ids) await call(gateway, 'DELETE', `/webhooks/${id}`, { token: admin }).catch(() => undefined);
    await receiver.close();
    log('webhooks bench: endpoints removed');
  }
}

module.exports = { webhooksBench };
