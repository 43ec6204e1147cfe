'use strict';
// Part 9 of `npm run bench`: what the audit log costs sign-in. Two sign-in paths on the same
// databases, broker and Redis, side by side: the stack's own gateway and identity (AUDIT_EVENTS on:
// each sign-in writes its auth.sign_in.succeeded event to the outbox, the relay publishes it, the
// audit service appends it to the chain), and a second gateway and identity started for this part
// with AUDIT_EVENTS=false. Floods of POST /auth (8 connections, one account, Argon2id at the
// stack's costs) alternate between them in A/B rounds, so the machine's noise hits both alike; the
// ratio of the median sign-ins/s is what the audit log costs. The floor, in the same rounds: the
// "off" path while this process writes, for each sign-in answered, the two documents no audit log
// can do without (an outbox entry in identity's database before the answer, a record in the audit
// database), shaped and indexed as the real ones, with no broker, relay or consumer. Then the
// events the "on" rounds made must all be in the audit log (counted in its database), so the log
// kept up rather than fell behind. Traffic goes to 127.0.0.1 only.

const { randomUUID } = require('node:crypto');
const { MongoClient } = require('mongodb');
const stackLib = require('../../scripts/lib/stack.cjs');
const backing = require('../../scripts/lib/backing.cjs');
const { sleep } = require('./pacing.cjs');

const CONNECTIONS = 8;
const WARM_UP_SECONDS = 2;

/**
 * Sign-ins/s over `seconds` on `base` (autocannon), failing loudly on any other answer; with
 * `onSignIn`, called for each sign-in answered (the floor's writes), all awaited before the end.
 * @param {string} base @param {{ body: string, headers: Record<string, string> }} request @param {number} seconds
 * @param {() => Promise<unknown>} [onSignIn]
 */
async function flood(base, request, seconds, onSignIn) {
  const autocannon = require('autocannon');
  const pending = new Set();
  const instance = autocannon({
    url: `${base}/auth`,
    method: 'POST',
    headers: request.headers,
    body: request.body,
    connections: CONNECTIONS,
    duration: seconds,
  });
  if (onSignIn)
    instance.on('response', (_client, status) => {
      if (status !== 201) return;
      const write = onSignIn();
      pending.add(write);
      write.finally(() => pending.delete(write));
    });
  const result = await new Promise((resolve) => instance.once('done', resolve));
  await Promise.all(pending);
  const good = result.statusCodeStats?.['201']?.count ?? 0;
  const other = Object.entries(result.statusCodeStats ?? {}).filter(([status]) => status !== '201');
  if (other.length > 0 || result.errors > result.timeouts) {
    throw new Error(`POST /auth on ${base}: expected 201, got ${JSON.stringify(result.statusCodeStats)} (errors ${result.errors})`);
  }
  return { rps: good / seconds, count: good };
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/**
 * @param {{ gateway: string, startExtra: import('../../scripts/lib/stack.cjs').Stack['startExtra'], masterKey: string,
 *   mongoUrl: string, auditDb: string, identityDb: string, email: string, password: string, seconds: number, rounds: number,
 *   log: (m: string) => void, row: (section: string, what: string, value: string, note?: string) => void }} options
 */
async function auditBench(options) {
  const { seconds, rounds, log, row } = options;
  const identityDef = stackLib.SERVICES.find((d) => d.name === 'identity');
  if (!identityDef) throw new Error('no identity in services.json');
  const identityPort = await backing.freePort();
  await options.startExtra(identityDef, { name: 'identity-audit-off', port: identityPort, overrides: { AUDIT_EVENTS: 'false' } });
  const gatewayPort = await backing.freePort();
  const off = await options.startExtra(stackLib.GATEWAY, {
    name: 'gateway-audit-off',
    port: gatewayPort,
    overrides: { IDENTITY_URL: `http://127.0.0.1:${identityPort}` },
  });
  const body = JSON.stringify({ access_token: options.masterKey });
  const request = {
    body,
    headers: {
      'content-type': 'application/json',
      authorization: `Basic ${Buffer.from(`${options.email}:${options.password}`).toString('base64')}`,
    },
  };
  const client = new MongoClient(options.mongoUrl);
  try {
    const events = client.db(options.auditDb).collection('audit_events');
    // The floor's two collections, indexed as the outbox and the audit log are.
    /** @type {import('mongodb').Collection<any>} */
    const floorOutbox = client.db(options.identityDb).collection('bench_floor_outbox');
    /** @type {import('mongodb').Collection<any>} */
    const floorLog = client.db(options.auditDb).collection('bench_floor_log');
    for (const [keys, unique] of [[{ status: 1, nextAttemptAt: 1 }], [{ recordId: 1, seq: 1 }], [{ doneAt: 1 }]])
      await floorOutbox.createIndex(keys, { unique: Boolean(unique) });
    for (const keys of [
      { eventId: 1 },
      { at: 1 },
      { type: 1, _id: -1 },
      { 'subject.id': 1, _id: -1 },
      { 'actor.id': 1, _id: -1 },
      { ip: 1, _id: -1 },
    ])
      await floorLog.createIndex(keys, { unique: 'eventId' in keys });
    let floorSeq = 0;
    const floorWrites = async () => {
      const id = randomUUID();
      const at = new Date();
      const event = { id, type: 'auth.sign_in.succeeded', resource: 'auth', recordId: id, seq: 1, at: at.toISOString(), requestId: id };
      await floorOutbox.insertOne({
        _id: `${id}:1`,
        recordId: id,
        seq: 1,
        event,
        status: 'pending',
        attempts: 0,
        nextAttemptAt: at,
        createdAt: at,
      });
      await floorLog.insertOne({
        _id: ++floorSeq,
        eventId: id,
        at,
        type: event.type,
        outcome: 'success',
        actor: { kind: 'user', id: 'u' },
        subject: { kind: 'user', id: 'u' },
        ip: '127.0.0.1',
        userAgent: 'bench',
        requestId: id,
        details: {},
        prevHash: '0'.repeat(64),
        hash: '0'.repeat(64),
      });
    };
    const signInsStored = () => events.countDocuments({ type: 'auth.sign_in.succeeded' });
    const paths = { on: options.gateway, off: off.url };
    for (const base of [paths.on, paths.off]) await flood(base, request, WARM_UP_SECONDS);
    await sleep(2_000);
    const storedBefore = await signInsStored();
    /** @type {Record<'on' | 'off' | 'floor', number[]>} */
    const rps = { on: [], off: [], floor: [] };
    let onSignIns = 0;
    for (let round = 0; round < rounds; round++) {
      // Rotate which goes first, so none always follows another's tail.
      const sides = /** @type {const} */ (['on', 'off', 'floor']);
      const order = [...sides.slice(round % 3), ...sides.slice(0, round % 3)];
      for (const side of order) {
        const result =
          side === 'floor' ? await flood(paths.off, request, seconds, floorWrites) : await flood(paths[side], request, seconds);
        rps[side].push(result.rps);
        if (side === 'on') onSignIns += result.count;
        log(`audit ${side}: ${result.rps.toFixed(1)} sign-ins/s`);
      }
    }
    // Every sign-in of the "on" rounds in the log: wait for the chain to take the last ones.
    const deadline = Date.now() + 60_000;
    let stored = 0;
    while (Date.now() < deadline && (stored = (await signInsStored()) - storedBefore) < onSignIns) await sleep(500);
    const on = median(rps.on);
    const offRps = median(rps.off);
    const floor = median(rps.floor);
    const list = (values) => values.map((r) => r.toFixed(1)).join(', ');
    row(
      '9 audit',
      `POST /auth (${CONNECTIONS} conn.) sign-ins/s, audit log on / off / floor (median of ${rounds} rounds of ${seconds} s)`,
      `${on.toFixed(1)} / ${offRps.toFixed(1)} / ${floor.toFixed(1)}`,
      `rounds on ${list(rps.on)}; off ${list(rps.off)}; floor ${list(rps.floor)}`,
    );
    row('9 audit', 'sign-in throughput with the audit log on ÷ off', `**${(on / offRps).toFixed(3)}×**`, 'target ≥ 0.95');
    row(
      '9 audit',
      'floor ÷ off: off plus the two writes per sign-in no audit log avoids',
      `${(floor / offRps).toFixed(3)}×`,
      'on ÷ floor ' + (on / floor).toFixed(3),
    );
    row('9 audit', 'sign-ins of the "on" rounds stored in the audit log', `${stored} of ${onSignIns}`, 'within 60 s of the last flood');
  } finally {
    await client.close();
  }
}

module.exports = { auditBench };
