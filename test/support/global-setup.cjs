// Provisions MongoDB, RabbitMQ and Redis once per jest run, the way `npm start` does, on loopback,
// with data in a throw-away folder. Workers inherit the URLs through process.env.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { ensureMongo, ensureRabbit, ensureRedis, provisionBacking } = require('../../scripts/lib/backing.cjs');

module.exports = async function globalSetup() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'restgate-test-'));
  const log = (msg) => process.stderr.write(`[test setup] ${msg}\n`);
  await provisionBacking({ log });
  const mongo = await ensureMongo({ dataDir, log });
  let rabbit;
  let redis;
  try {
    rabbit = await ensureRabbit({ dataDir, log });
    redis = await ensureRedis({ dataDir, log });
  } catch (err) {
    await Promise.allSettled([mongo.stop(), rabbit?.stop()]);
    throw err;
  }
  process.env.MONGODB_URL = mongo.url;
  process.env.AMQP_URL = rabbit.url;
  process.env.REDIS_URL = redis.url;
  globalThis.__RESTGATE_BACKING__ = { mongo, rabbit, redis, dataDir };
};
