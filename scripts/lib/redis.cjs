// @ts-check
'use strict';
// Redis: REDIS_URL when set, else a server of the stack's own, installed from Debian when missing.
// Node built-ins only: this runs before `npm install`.

const fs = require('node:fs');
const path = require('node:path');
const { findOrInstall } = require('./packages.cjs');
const { LOOPBACK, freePort } = require('./ports.cjs');
const { defaultLog, fromEnvironment, serverHandle, startChild, which } = require('./processes.cjs');

/** @typedef {import('./processes.cjs').Env} Env */
/** @typedef {import('./processes.cjs').Log} Log */
/** @typedef {import('./processes.cjs').ServerHandle} ServerHandle */

/**
 * @param {object} [options]
 * @param {string} [options.dataDir]  required unless `env` names a server
 * @param {Log} [options.log]
 * @param {Env} [options.env]  whose REDIS_URL is honoured (a test that kills its own server passes {})
 * @param {number} [options.port]  listen there instead of on a free port (a test restarting its server on the same address)
 * @returns {Promise<ServerHandle>}
 */
async function ensureRedis({ dataDir, log = defaultLog, env = process.env, port } = {}) {
  const given = fromEnvironment(env, 'REDIS_URL', log);
  if (given) return given;
  if (!dataDir) throw new Error('ensureRedis: dataDir is required');
  const bin = await findOrInstall(() => which('redis-server'), {
    pkg: 'redis-server',
    what: 'redis-server',
    alternative: 'Redis is not available. Set REDIS_URL to a running server, or install it',
    log,
  });
  const dir = path.join(path.resolve(dataDir), 'redis');
  fs.mkdirSync(dir, { recursive: true });
  const chosen = port ?? (await freePort());
  log(`starting redis-server on ${LOOPBACK}:${chosen} (files in ${dir})`);
  // An append-only file, fsynced every second, no snapshots: the ended sessions recorded here must
  // survive a restart (a lost one would re-admit its access tokens until they expire); the rate-limit
  // counters come back with them. At most the last second of writes can be lost by a crash of the machine.
  const child = startChild({
    name: 'redis-server',
    cmd: bin,
    args: [
      '--port',
      String(chosen),
      '--bind',
      LOOPBACK,
      '--save',
      '',
      '--appendonly',
      'yes',
      '--appendfsync',
      'everysec',
      '--dir',
      dir,
      '--daemonize',
      'no',
    ],
    env: process.env,
    logFile: path.join(dir, 'redis.log'),
    log,
  });
  const handle = await serverHandle(child, chosen, 'redis-server');
  return { ...handle, url: `redis://${LOOPBACK}:${chosen}`, pid: child.pid };
}

module.exports = { ensureRedis };
