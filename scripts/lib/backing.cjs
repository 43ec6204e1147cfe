// @ts-check
'use strict';
// The backing services (a MongoDB-compatible server, RabbitMQ, Redis) for local runs, tests and
// CI: one front door over mongo.cjs, rabbit.cjs and redis.cjs. Node built-ins only: this runs
// before `npm install`.
//
// Every process started through it is owned by the caller: the returned stop() ends it by its own
// pid (never by name), and a best-effort 'exit' hook ends anything the caller forgot to stop.

const fs = require('node:fs');
const path = require('node:path');
const { FERRET_VERSION, ensureFerretBinary, ferretCacheDir } = require('./ferretdb-build.cjs');
const { ensureMongo, ferretBackend } = require('./mongo.cjs');
const { canInstallPackages, ensurePackages } = require('./packages.cjs');
const { amqpAnswers, freePort, waitForPort } = require('./ports.cjs');
const { findPostgresBin } = require('./postgres.cjs');
const { defaultLog, readTail, which } = require('./processes.cjs');
const { ensureRabbit, findRabbitTools } = require('./rabbit.cjs');
const { ensureRedis } = require('./redis.cjs');

/** @typedef {import('./processes.cjs').Env} Env */
/** @typedef {import('./processes.cjs').Log} Log */
/** @typedef {import('./processes.cjs').ServerHandle} ServerHandle */

/**
 * Installs, in one apt-get step, every package that ensureMongo/ensureRabbit/ensureRedis would
 * otherwise install one by one (plus `extra`, e.g. the browser `npm test` needs). Call it before
 * starting those in parallel: their own installs would then race for the package database. Each
 * of them still installs what is missing when called alone, through the same packages.cjs.
 * @param {object} [options]
 * @param {Env} [options.env]  whose MONGODB_URL/AMQP_URL/REDIS_URL are honoured, as by the ensure* calls
 * @param {Log} [options.log]
 * @param {boolean} [options.mongo] @param {boolean} [options.rabbit] @param {boolean} [options.redis]
 * @param {string[]} [options.extra]
 * @returns {Promise<string[]>} the packages it installed
 */
async function provisionBacking({ env = process.env, log = defaultLog, mongo = true, rabbit = true, redis = true, extra = [] } = {}) {
  const names = [...extra];
  if (mongo && !env.MONGODB_URL && !which('mongod') && ferretBackend(env) === 'postgresql' && !findPostgresBin()) {
    names.push('postgresql');
  }
  if (rabbit && !env.AMQP_URL && !findRabbitTools()) names.push('rabbitmq-server');
  if (redis && !env.REDIS_URL && !which('redis-server')) names.push('redis-server');
  // Without root the ensure* calls say what to install, each for its own server.
  if (names.length === 0 || !canInstallPackages()) return [];
  return ensurePackages(names, { log });
}

/**
 * .data/ holds password hashes (the SQLite files), live reset links (.eml files, logs) and the
 * broker's login: only its owner may read it. The umask is inherited by every process started
 * afterwards (servers, services), so what they create there is private too; what an older run
 * left readable is tightened (folders 0700, files 0600).
 * @param {string} dir
 */
function makePrivate(dir) {
  process.umask(0o077);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  /** @param {string} target */
  const tighten = (target) => {
    const stat = fs.lstatSync(target);
    if (stat.isSymbolicLink()) return;
    if (stat.isDirectory()) {
      fs.chmodSync(target, 0o700);
      for (const entry of fs.readdirSync(target)) tighten(path.join(target, entry));
    } else {
      fs.chmodSync(target, 0o600 | (stat.mode & 0o100));
    }
  };
  tighten(dir);
}

/** @typedef {ServerHandle} BackingServer */

module.exports = {
  makePrivate,
  provisionBacking,
  ensureMongo,
  ensureRabbit,
  ensureFerretBinary,
  ensureRedis,
  freePort,
  waitForPort,
  readTail,
  // exported for scripts and tests that need the same answers
  amqpAnswers,
  ferretCacheDir,
  FERRET_VERSION,
};
