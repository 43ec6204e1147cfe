'use strict';
// Part 9 of `npm run bench`: what the audit log costs sign-in. Two sign-in paths on the same
// databases, broker and Redis, side by side: the stack's own gateway and identity (AUDIT_EVENTS on:
// each sign-in writes its auth.sign_in.succeeded event to the outbox, the relay publishes it, the
// audit service appends it to the chain), and a second gateway and identity started for this part
// with AUDIT_EVENTS=false. Floods of POST /auth (8 connections, one account, Argon2id at the
// stack's costs) alternate between them in A/B rounds, so the machine's noise hits both alike; the
// ratio of the median sign-ins/s is what the audit log costs. Then the events the "on" rounds made
// must all be in the audit log (counted in its database), so the log kept up rather than fell behind.
// Traffic goes to 127.0.0.1 only.

const { MongoClient } = require('mongodb');
const stackLib = require('../../scripts/lib/stack.cjs');
const backing = require('../../scripts/lib/backing.cjs');
const { sleep } = require('./pacing.cjs');

const CONNECTIONS = 8;
const WARM_UP_SECONDS = 2;

/** Sign-ins/s over `seconds` on `base` (autocannon), failing loudly on any other answer. */
async function flood(base, request, seconds) {
  const autocannon = require('autocannon');
  const result = await autocannon({
    url: `${base}/auth`,
    method: 'POST',
    headers: request.headers,
    body: request.body,
    connections: CONNECTIONS,
    duration: seconds,
  });
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
 *   mongoUrl: string, auditDb: string, email: string, password: string, seconds: number, rounds: number,
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
    const signInsStored = () => events.countDocuments({ type: 'auth.sign_in.succeeded' });
    const paths = { on: options.gateway, off: off.url };
    for (const base of [paths.on, paths.off]) await flood(base, request, WARM_UP_SECONDS);
    await sleep(2_000);
    const storedBefore = await signInsStored();
    const rps = { on: [], off: [] };
    let onSignIns = 0;
    for (let round = 0; round < rounds; round++) {
      // Alternate which goes first, so neither always follows the other's tail.
      const order = round % 2 === 0 ? ['on', 'off'] : ['off', 'on'];
      for (const side of order) {
        const result = await flood(paths[side], request, seconds);
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
    row(
      '9 audit',
      `POST /auth (${CONNECTIONS} conn.) sign-ins/s, audit log on / off (median of ${rounds} A/B rounds of ${seconds} s)`,
      `${on.toFixed(1)} / ${offRps.toFixed(1)}`,
      `rounds on ${rps.on.map((r) => r.toFixed(1)).join(', ')}; off ${rps.off.map((r) => r.toFixed(1)).join(', ')}`,
    );
    row('9 audit', 'sign-in throughput with the audit log on ÷ off', `**${(on / offRps).toFixed(3)}×**`, 'target ≥ 0.95');
    row('9 audit', 'sign-ins of the "on" rounds stored in the audit log', `${stored} of ${onSignIns}`, 'within 60 s of the last flood');
  } finally {
    await client.close();
  }
}

module.exports = { auditBench };
