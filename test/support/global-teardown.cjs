const fs = require('node:fs');

module.exports = async function globalTeardown() {
  const backing = globalThis.__RESTGATE_BACKING__;
  if (!backing) return;
  await Promise.allSettled([backing.mongo.stop(), backing.rabbit.stop(), backing.redis.stop()]);
  fs.rmSync(backing.dataDir, { recursive: true, force: true });
};
