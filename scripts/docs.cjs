#!/usr/bin/env node
'use strict';
// `npm run docs`: writes the gateway's merged OpenAPI 3.1 document to docs/openapi.json, for those
// who publish API docs elsewhere.
//
//   node scripts/docs.cjs [--url http://127.0.0.1:9000] [--out docs/openapi.json]
//
// The document is what a running gateway serves at /openapi.json, merged from the parts the
// services build from their route tables: no second generator that could disagree with it. With
// --url it is read from that gateway; otherwise the script starts the built stack the way
// `npm start` and the contract tests do (stack.cjs: throw-away secrets, free ports, databases of
// its own, MongoDB and RabbitMQ from backing.cjs), reads the document, and stops everything.
// The result must be complete (every service answered) and valid OpenAPI 3.1, or nothing is written.

const { randomBytes } = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const ROOT_DIR = path.resolve(__dirname, '..');
const COMPLETE_WITHIN_MS = 30_000;
const log = (msg) => process.stderr.write(`[docs] ${msg}\n`);

/**
 * The parts of the gateway's document read here.
 * @typedef {{ paths: Record<string, Record<string, Record<string, unknown>>>, 'x-restgate-missing-upstreams'?: string[] }} OpenApiDocument
 */

function parseArgs(argv) {
  /** @type {{ url?: string, out: string }} */
  const options = { url: undefined, out: path.join(ROOT_DIR, 'docs', 'openapi.json') };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--url' && i + 1 < argv.length) options.url = argv[++i];
    else if (arg === '--out' && i + 1 < argv.length) options.out = argv[++i];
    else throw new Error(`unknown argument ${arg} (usage: docs.cjs [--url <gateway>] [--out <file>])`);
  }
  if (options.url) options.url = options.url.replace(/\/+$/, '');
  return options;
}

/** The gateway's document, once every service has sent its part (a starting service may lag). */
async function fetchComplete(baseUrl) {
  const deadline = Date.now() + COMPLETE_WITHIN_MS;
  for (;;) {
    const res = await fetch(`${baseUrl}/openapi.json`, { signal: AbortSignal.timeout(15_000) });
    if (!res.ok) throw new Error(`GET ${baseUrl}/openapi.json answered ${res.status}`);
    const doc = /** @type {OpenApiDocument} */ (await res.json());
    const missing = doc['x-restgate-missing-upstreams'];
    if (!missing) return doc;
    if (Date.now() > deadline) throw new Error(`these services did not send their part: ${missing.join(', ')}`);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
}

/** Starts backing services and the stack; returns the gateway URL and a stop function. */
async function startOwnStack(cleanups) {
  const { ensureMongo, ensureRabbit, freePort, provisionBacking } = require('./lib/backing.cjs');
  const { startStack, SERVICES, GATEWAY } = require('./lib/stack.cjs');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'restgate-docs-'));
  cleanups.push(async () => fs.rmSync(dataDir, { recursive: true, force: true }));
  const quiet = (msg) => log(msg);
  await provisionBacking({ log: quiet, redis: false });
  const mongo = await ensureMongo({ dataDir, log: quiet });
  cleanups.push(() => mongo.stop());
  const rabbit = await ensureRabbit({ dataDir, log: quiet });
  cleanups.push(() => rabbit.stop());

  const suffix = randomBytes(4).toString('hex');
  const dbNames = Object.fromEntries(SERVICES.map((def) => [def.name, `docs_${def.name.replace(/\W/g, '_')}_${suffix}`]));
  /** @type {Record<string, number>} */
  const ports = {};
  for (const def of [GATEWAY, ...SERVICES]) ports[def.name] = await freePort();
  const secret = () => randomBytes(32).toString('base64url');
  const stack = await startStack({
    env: {
      NODE_ENV: 'development',
      LOG_LEVEL: 'warn',
      MONGODB_URL: mongo.url,
      AMQP_URL: rabbit.url,
      // Names of its own even on a broker that AMQP_URL shares with a running stack.
      TOPOLOGY_PREFIX: `docs-${suffix}.`,
      MASTER_KEY: secret(),
      JWT_SECRET: secret(),
      PRINCIPAL_SECRET: secret(),
      WEBHOOK_ENCRYPTION_KEY: secret(),
    },
    ports,
    logDir: path.join(dataDir, 'logs'),
    serviceEnv: Object.fromEntries(Object.entries(dbNames).map(([name, db]) => [name, { MONGODB_DB: db }])),
    log: quiet,
  });
  // Databases of our own, dropped again when they may live in someone's MongoDB.
  cleanups.push(async () => {
    if (mongo.source !== 'env') return;
    const { MongoClient } = require('mongodb');
    const client = new MongoClient(mongo.url, { serverSelectionTimeoutMS: 3_000 });
    try {
      await Promise.allSettled(Object.values(dbNames).map((db) => client.db(db).dropDatabase()));
    } finally {
      await client.close();
    }
  });
  cleanups.push(() => stack.stop());
  return stack.gatewayUrl;
}

async function validate(doc) {
  const { Validator } = await import('@seriousme/openapi-schema-validator');
  const result = await new Validator().validate(doc);
  if (!result.valid) throw new Error(`the document is not valid OpenAPI 3.1:\n${JSON.stringify(result.errors, null, 2)}`);
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const cleanups = [];
  const cleanUp = async () => {
    while (cleanups.length)
      await cleanups
        .pop()()
        .catch((err) => log(`cleanup: ${err.message}`));
  };
  const onSignal = (sig) => {
    log(`${sig} received; stopping`);
    cleanUp().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    const url = options.url ?? (await startOwnStack(cleanups));
    const doc = await fetchComplete(url);
    await validate(doc);
    const undocumented = Object.entries(doc.paths).flatMap(([p, item]) =>
      Object.entries(item)
        .filter(([, op]) => op['x-restgate-undocumented'])
        .map(([method]) => `${method.toUpperCase()} ${p}`),
    );
    if (undocumented.length) log(`warning: served but not described by their service: ${undocumented.join(', ')}`);
    fs.mkdirSync(path.dirname(options.out), { recursive: true });
    fs.writeFileSync(options.out, `${JSON.stringify(doc, null, 2)}\n`);
    const operations = Object.values(doc.paths).reduce((n, item) => n + Object.keys(item).length, 0);
    log(`wrote ${path.relative(process.cwd(), options.out) || options.out} (${operations} operations, from ${url})`);
  } finally {
    await cleanUp();
  }
}

main().catch((err) => {
  log(`failed: ${err.message}`);
  process.exitCode = 1;
});
