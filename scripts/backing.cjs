#!/usr/bin/env node
'use strict';
// Manual / CI-debugging entry point for the backing services.
//
//   node scripts/backing.cjs up
//
// Starts (or finds) MongoDB-compatible storage and RabbitMQ with their data in .data/ at the repo
// root, prints one line `MONGODB_URL=... AMQP_URL=... REDIS_URL=...` on stdout, and stays in the foreground
// until SIGINT or SIGTERM, then stops whatever it started. Progress goes to stderr.

const path = require('node:path');
const { ensureMongo, ensureRabbit, ensureRedis, makePrivate, provisionBacking } = require('./lib/backing.cjs');

const log = (msg) => process.stderr.write(`[backing] ${msg}\n`);

async function up() {
  const dataDir = path.join(__dirname, '..', '.data');
  // Handlers go in before anything starts, so a signal during startup still stops what started
  // (once startup finishes). A second signal exits at once; the library's exit hook then sends
  // SIGTERM to the servers it started.
  let received = null;
  const signalled = new Promise((resolve) => {
    const onSignal = (sig) => {
      if (received) {
        log(`${sig} received again; exiting without waiting`);
        process.exit(1);
      }
      received = sig;
      resolve(sig);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
  // Nothing else may keep the event loop alive when both services were found rather than started.
  const keepAlive = setInterval(() => {}, 1 << 30);

  makePrivate(dataDir);
  const provisioned = await provisionBacking({ log }).then(
    () => null,
    (err) => err,
  );
  /** @type {PromiseSettledResult<import('./lib/backing.cjs').ServerHandle>[]} */
  const results = provisioned
    ? [{ status: 'rejected', reason: provisioned }]
    : await Promise.allSettled([ensureMongo({ dataDir, log }), ensureRabbit({ dataDir, log }), ensureRedis({ dataDir, log })]);
  const started = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  const failures = results.flatMap((r) => (r.status === 'rejected' ? [r.reason] : []));

  if (failures.length > 0) {
    for (const err of failures) log(`error: ${err.message}`);
    process.exitCode = 1;
  } else if (received) {
    log(`${received} received during startup; stopping`);
  } else {
    const [mongo, rabbit, redis] = started;
    process.stdout.write(`MONGODB_URL=${mongo.url} AMQP_URL=${rabbit.url} REDIS_URL=${redis.url}\n`);
    log('running; press Ctrl-C (or send SIGTERM) to stop');
    log(`${await signalled} received; stopping`);
  }

  try {
    await Promise.all(started.map((s) => s.stop()));
    log('stopped');
  } finally {
    clearInterval(keepAlive);
  }
}

const command = process.argv[2];
if (command === 'up') {
  up().catch((err) => {
    log(`error: ${err.stack || err.message}`);
    process.exitCode = 1;
  });
} else {
  process.stderr.write('usage: node scripts/backing.cjs up\n');
  process.exitCode = 2;
}
