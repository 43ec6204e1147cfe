// @ts-check
'use strict';
// RabbitMQ: AMQP_URL when set, else a broker of the stack's own, installed from Debian when
// missing. Node built-ins only: this runs before `npm install`.
//
// RabbitMQ's epmd (Erlang port mapper) daemonizes itself outside our process group. So each of our
// brokers gets an epmd of its own, on a free port instead of the shared 4369 (ERL_EPMD_PORT), and
// ends it with `epmd -kill` after the broker: two stacks stopping at once each end their own, and
// an epmd someone else runs on 4369 is never touched.

const { randomBytes } = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { findOrInstall } = require('./packages.cjs');
const { LOOPBACK, amqpAnswers, freePort, waitFor } = require('./ports.cjs');
const { defaultLog, fromEnvironment, isExecutable, run, startChild, stopQuietly, which, withoutPrefixed } = require('./processes.cjs');

/** @typedef {import('./processes.cjs').Env} Env */
/** @typedef {import('./processes.cjs').Log} Log */
/** @typedef {import('./processes.cjs').ServerHandle} ServerHandle */
/** @typedef {{ server: string, ctl: string }} RabbitTools */
/** @typedef {{ user: string, password: string, vhost: string }} Credentials */

/**
 * Without AMQP_URL every stack (each `npm start` checkout, `npm run docs`, each test run) gets a
 * broker of its own, never one that happens to answer on 5672: a broker shared under the same
 * queue names let one stack's mailer take another's mail. Its only user and virtual host are
 * this dataDir's (random, kept in rabbitmq/credentials.json, 0600); there is no guest user.
 * @param {object} [options]
 * @param {string} [options.dataDir]  required unless `env` names a broker
 * @param {Log} [options.log]
 * @param {Env} [options.env]  whose AMQP_URL is honoured
 * @param {number} [options.port]  start the broker there (a test that stops and restarts its broker on the same address)
 * @returns {Promise<ServerHandle>}
 */
async function ensureRabbit({ dataDir, log = defaultLog, env = process.env, port } = {}) {
  const given = fromEnvironment(env, 'AMQP_URL', log);
  if (given) return given;
  if (!dataDir) throw new Error('ensureRabbit: dataDir is required');
  const tools = await findOrInstall(findRabbitTools, {
    pkg: 'rabbitmq-server',
    what: 'rabbitmq-server',
    alternative: 'RabbitMQ is not available. Set AMQP_URL to a running broker, or install it',
    log,
  });
  return startRabbit(tools, path.resolve(dataDir), log, port);
}

/**
 * The stack's broker login, the same on every start from one dataDir (a restarted broker keeps
 * the address and credentials the running services hold).
 * @param {string} base @returns {Credentials}
 */
function rabbitCredentials(base) {
  const file = path.join(base, 'credentials.json');
  try {
    const saved = JSON.parse(fs.readFileSync(file, 'utf8'));
    if (saved.user && saved.password && saved.vhost) return saved;
  } catch {
    // none yet, or unreadable: a new login
  }
  const id = randomBytes(4).toString('hex');
  const credentials = { user: `restgate-${id}`, password: randomBytes(24).toString('base64url'), vhost: `restgate-${id}` };
  fs.mkdirSync(base, { recursive: true, mode: 0o700 });
  fs.writeFileSync(file, `${JSON.stringify(credentials)}\n`, { mode: 0o600 });
  return credentials;
}

/**
 * Debian's /usr/sbin/rabbitmq-server is a wrapper that, as root, re-runs the real script through
 * `su rabbitmq` in a new session, with output sent to /var/log: we could neither signal its
 * process group nor use a data folder of ours. So we run the real scripts directly when present.
 * @returns {RabbitTools | null}
 */
function findRabbitTools() {
  const libDir = '/usr/lib/rabbitmq/bin';
  if (isExecutable(path.join(libDir, 'rabbitmq-server')) && isExecutable(path.join(libDir, 'rabbitmqctl'))) {
    return { server: path.join(libDir, 'rabbitmq-server'), ctl: path.join(libDir, 'rabbitmqctl') };
  }
  const server = which('rabbitmq-server');
  const ctl = which('rabbitmqctl');
  return server && ctl ? { server, ctl } : null;
}

// Node names must be unique per machine; the pid covers other processes, the count this one. The
// random part covers copies of this module in one process (jest loads it afresh per test file).
let rabbitCount = 0;
const moduleCopy = randomBytes(3).toString('hex');

/**
 * @param {RabbitTools} tools @param {string} dataDir @param {Log} log @param {number | undefined} fixedPort
 * @returns {Promise<ServerHandle>}
 */
async function startRabbit(tools, dataDir, log, fixedPort) {
  const started = Date.now();
  // A free port, not 5672 when it happens to be free: two stacks starting at once would both see
  // it free, and the second broker would fail to listen.
  const port = fixedPort ?? (await freePort());
  rabbitCount += 1;
  const node = `restgate-${process.pid}-${moduleCopy}${rabbitCount > 1 ? `-${rabbitCount}` : ''}@localhost`;
  const base = path.join(dataDir, 'rabbitmq');
  const nodeDir = path.join(base, node);
  const credentials = rabbitCredentials(base);
  const env = await rabbitEnv({ base, nodeDir, node, port, credentials });

  log(`starting RabbitMQ node ${node} on ${LOOPBACK}:${port} (files in ${nodeDir})`);
  const child = startChild({
    name: 'rabbitmq-server',
    cmd: tools.server,
    args: [],
    env,
    cwd: nodeDir,
    logFile: path.join(nodeDir, 'stdout.log'),
    log,
  });

  try {
    await waitFor(() => amqpAnswers(LOOPBACK, port, 1000), {
      timeoutMs: 60000,
      what: `RabbitMQ on ${LOOPBACK}:${port}`,
      child,
      intervalMs: 250,
    });
    await waitFor(() => ctlStatusOk(tools.ctl, node, env), {
      timeoutMs: Math.max(5000, 60000 - (Date.now() - started)),
      what: `rabbitmqctl -n ${node} status`,
      child,
    });
  } catch (err) {
    await stopQuietly(child);
    await killEpmd(env);
    throw err;
  }
  log(`RabbitMQ ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);

  const stop = async () => {
    const crashed = Boolean(child.exitInfo) && !child.stopping;
    await child.stop(20000);
    await killEpmd(env);
    // The node name is unique to this run, so nothing would ever read these files again; after a
    // crash, though, its logs are what someone will want to read.
    if (!crashed) fs.rmSync(nodeDir, { recursive: true, force: true });
  };
  const login = `${encodeURIComponent(credentials.user)}:${encodeURIComponent(credentials.password)}`;
  return { url: `amqp://${login}@${LOOPBACK}:${port}/${encodeURIComponent(credentials.vhost)}`, stop, source: 'rabbitmq-server' };
}

/**
 * Everything the broker writes goes under dataDir, and nothing from /etc/rabbitmq (an admin's
 * plugins, listeners, node name) changes our broker. HOME is ours too, so the Erlang cookie that
 * both the broker and rabbitmqctl read is created there and not in the user's home.
 *
 * The node's first boot (its node name, hence its database, is new on every start) creates the
 * stack's user and virtual host from rabbitmq.conf instead of guest. The Erlang distribution
 * listens on loopback only, and so does the node's own epmd.
 * @param {{ base: string, nodeDir: string, node: string, port: number, credentials: Credentials }} options
 * @returns {Promise<Env>}
 */
async function rabbitEnv({ base, nodeDir, node, port, credentials }) {
  const home = path.join(base, 'home');
  fs.mkdirSync(home, { recursive: true });
  fs.mkdirSync(nodeDir, { recursive: true });
  const confEnvFile = path.join(nodeDir, 'rabbitmq-env.conf');
  const pluginsFile = path.join(nodeDir, 'enabled_plugins');
  fs.writeFileSync(confEnvFile, '# intentionally empty: settings come from the environment\n');
  fs.writeFileSync(pluginsFile, '[].\n');
  fs.writeFileSync(
    path.join(nodeDir, 'rabbitmq.conf'),
    [
      `default_vhost = ${credentials.vhost}`,
      `default_user = ${credentials.user}`,
      `default_pass = ${credentials.password}`,
      'default_permissions.configure = .*',
      'default_permissions.read = .*',
      'default_permissions.write = .*',
      '',
    ].join('\n'),
    { mode: 0o600 },
  );
  fs.writeFileSync(path.join(nodeDir, 'advanced.config'), '[{kernel, [{inet_dist_use_interface, {127,0,0,1}}]}].\n', { mode: 0o600 });
  return {
    ...withoutPrefixed(process.env, 'RABBITMQ_'),
    ERL_EPMD_ADDRESS: LOOPBACK,
    // The broker's own epmd (see the top of this file); rabbitmqctl and `epmd -kill` get it too.
    ERL_EPMD_PORT: String(await freePort()),
    HOME: home,
    RABBITMQ_NODENAME: node,
    RABBITMQ_NODE_IP_ADDRESS: LOOPBACK,
    RABBITMQ_NODE_PORT: String(port),
    // The default (AMQP port + 20000) may be taken by another broker, or exceed 65535.
    RABBITMQ_DIST_PORT: String(await freePort()),
    RABBITMQ_MNESIA_BASE: path.join(nodeDir, 'mnesia'),
    RABBITMQ_LOG_BASE: path.join(nodeDir, 'log'),
    RABBITMQ_CONF_ENV_FILE: confEnvFile,
    RABBITMQ_CONFIG_FILE: path.join(nodeDir, 'rabbitmq.conf'),
    RABBITMQ_ADVANCED_CONFIG_FILE: path.join(nodeDir, 'advanced.config'),
    RABBITMQ_ENABLED_PLUGINS_FILE: pluginsFile,
    // Idle schedulers sleep instead of spinning: the broker shares two cores with the stack and its tests.
    RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS: '+sbwt none +sbwtdcpu none +sbwtdio none',
  };
}

/** @param {string} ctl @param {string} node @param {Env} env */
async function ctlStatusOk(ctl, node, env) {
  try {
    await run(ctl, ['-n', node, '-q', 'status'], { env, timeoutMs: 20000 });
    return true;
  } catch {
    return false;
  }
}

/** @param {Env} env */
async function killEpmd(env) {
  const epmd = which('epmd');
  if (epmd) await run(epmd, ['-kill'], { env, timeoutMs: 5000 }).catch(() => {});
}

module.exports = { ensureRabbit, findRabbitTools };
