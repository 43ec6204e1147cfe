'use strict';
// A whole stack for a benchmark: backing services of its own in a temporary folder (FerretDB,
// RabbitMQ, Redis from scripts/lib/backing.cjs), every process of the registry on a free loopback
// port, each service on a database of its own. `cleanups` gets what stops it all and removes the
// folder. `env` and `serviceEnv` add to (or override) the defaults below; `ferret` picks FerretDB's
// build (the stack's patched one, or FerretDB's own for a comparison).

const { randomBytes } = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

/**
 * @param {{ cleanups: Array<() => Promise<unknown>>, log: (m: string) => void, env?: Record<string, string>,
 *   serviceEnv?: Record<string, Record<string, string>>, ferret?: import('../../scripts/lib/ferretdb-build.cjs').FerretFlavour }} options
 */
async function startBenchStack({ cleanups, log, env = {}, serviceEnv = {}, ferret = 'patched' }) {
  const backing = require('../../scripts/lib/backing.cjs');
  const stackLib = require('../../scripts/lib/stack.cjs');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'restgate-bench-'));
  cleanups.push(async () => fs.rmSync(dataDir, { recursive: true, force: true }));
  await backing.provisionBacking({ log });
  const [mongo, rabbit, redis] = await Promise.all([
    backing.ensureMongo({ dataDir, log, ferret }),
    backing.ensureRabbit({ dataDir, log }),
    backing.ensureRedis({ dataDir, log }),
  ]);
  cleanups.push(
    () => mongo.stop(),
    () => rabbit.stop(),
    () => redis.stop(),
  );

  const suffix = randomBytes(4).toString('hex');
  const secret = () => randomBytes(32).toString('hex');
  const masterKey = secret();
  /** @type {Record<string, number>} */
  const ports = {};
  for (const def of [stackLib.GATEWAY, ...stackLib.SERVICES]) ports[def.name] = await backing.freePort();
  const dbNames = Object.fromEntries(stackLib.SERVICES.filter((d) => d.owns?.database).map((d) => [d.name, `bench_${d.name}_${suffix}`]));
  const names = new Set([...Object.keys(dbNames), ...Object.keys(serviceEnv)]);
  const stack = await stackLib.startStack({
    env: {
      // What `npm start` runs (production would refuse a broker with the default password).
      NODE_ENV: 'development',
      MASTER_KEY: masterKey,
      JWT_SECRET: secret(),
      PRINCIPAL_SECRET: secret(),
      WEBHOOK_ENCRYPTION_KEY: secret(),
      // The bench's webhook receivers listen on loopback.
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      MONGODB_URL: mongo.url,
      AMQP_URL: rabbit.url,
      REDIS_URL: redis.url,
      REDIS_KEY_PREFIX: `bench-${suffix}`,
      TOPOLOGY_PREFIX: `bench-${suffix}.`,
      SMTP_URL: '',
      OUTBOX_DIR: path.join(dataDir, 'outbox'),
      ...env,
    },
    ports,
    logDir: path.join(dataDir, 'logs'),
    serviceEnv: Object.fromEntries(
      [...names].map((name) => [name, { ...(dbNames[name] && { MONGODB_DB: dbNames[name] }), ...serviceEnv[name] }]),
    ),
    log,
  });
  cleanups.push(() => stack.stop());
  return {
    stack,
    ports,
    masterKey,
    mongoUrl: mongo.url,
    dbNames,
    url: (name) => `http://127.0.0.1:${ports[name]}`,
    pids: Object.fromEntries(stack.processes.map((p) => [p.name, p.pid])),
  };
}

module.exports = { startBenchStack };
