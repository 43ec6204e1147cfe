// @ts-check
'use strict';
// Starts restgate's own processes (the upstream services, then the gateway; each one through
// service-process.cjs) and stops them again, the gateway first. Used by `npm start`, `npm run docs`,
// the bench and the contract tests. Node built-ins only.

const fs = require('node:fs');
const path = require('node:path');
const { formatLogLine, levelOf, parseLine } = require('./log-lines.cjs');
const { canListen } = require('./ports.cjs');
const { readRegistry } = require('./registry.cjs');
const { HOST, ROOT_DIR, abortError, spawnService, stopProcess, waitHealthy } = require('./service-process.cjs');

const REGISTRY = readRegistry();
const SERVICES = REGISTRY.services;
const GATEWAY = REGISTRY.gateway;

/** Keys only the processes that list them in `secrets` receive: MASTER_KEY reaches the gateway alone. */
const SECRET_KEYS = [...new Set([...GATEWAY.secrets, ...SERVICES.flatMap((s) => s.secrets)])];

/** @typedef {import('./registry.cjs').ServiceEntry} ServiceEntry */
/** @typedef {import('./service-process.cjs').ServiceProcess} ServiceProcess */
/** @typedef {import('./service-process.cjs').ExitInfo} ExitInfo */
/** @typedef {Record<string, string | undefined>} Env */
/**
 * A process that exited while nobody was stopping it.
 * @typedef {ExitInfo & { name: string, logFile: string, tail: string }} UnexpectedExit
 */
/**
 * @typedef {object} Stack
 * @property {string} gatewayUrl
 * @property {ServiceProcess[]} processes
 * @property {Promise<UnexpectedExit>} exited  resolves when a process exits that nobody stopped
 * @property {() => Promise<void>} stop  the gateway first, then the rest
 * @property {(def: ServiceEntry, options: { name: string, port: number, overrides?: Env }) => Promise<ServiceProcess>} startExtra
 *   one more process of a registry entry (a second identity with other settings), stopped with the stack
 */

/**
 * The environment of one service: shared env minus the secrets it may not see, plus its own.
 * @param {ServiceEntry} def @param {{ base: Env, overrides: Env, port: number, extra: Env }} parts
 * @returns {Env}
 */
function serviceEnvFor(def, { base, overrides, port, extra }) {
  const env = { ...base };
  for (const key of SECRET_KEYS) if (!def.secrets.includes(key)) delete env[key];
  return { ...env, ...extra, ...overrides, PORT: String(port), HOST };
}

/** @param {ServiceEntry[]} defs */
function assertBuilt(defs) {
  // The gateway reads the route specs of the services it routes to from their build (dist/api.js).
  const files = defs.flatMap((d) => [path.join(d.dir, 'dist', 'start.js'), ...(d.urlEnv ? [path.join(d.dir, 'dist', 'api.js')] : [])]);
  const missing = files.filter((f) => !fs.existsSync(path.join(ROOT_DIR, f)));
  if (missing.length > 0) {
    throw new Error(`not built: ${missing.join(', ')} missing. Run \`npx tsc -b\` (npm start and npm test do it for you).`);
  }
}

/**
 * The port of each process, from `env` (`PORT`, `IDENTITY_PORT`, …) or the defaults 9000, 9001, …
 * @param {Record<string, string | undefined>} env @returns {Record<string, number>}
 */
function portsFromEnv(env) {
  /** @type {Record<string, number>} */
  const ports = {};
  for (const def of [GATEWAY, ...SERVICES]) {
    const value = env[def.portEnv];
    const port = value === undefined || value === '' ? def.port : Number(value);
    if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`${def.portEnv}=${value} is not a port number`);
    ports[def.name] = port;
  }
  return ports;
}

/**
 * Starts the upstream services (in parallel; each must answer GET /health), then the gateway.
 *
 * @param {object} options
 * @param {Record<string, string | undefined>} options.env  shared environment (secrets, MONGODB_URL, AMQP_URL, LOG_LEVEL…); laid over process.env
 * @param {Record<string,number>} options.ports  port per process name (gateway, identity, articles)
 * @param {string} options.logDir  where `<name>.log` goes (the JSON lines of stdout and stderr)
 * @param {(msg: string) => void} [options.log]  progress messages
 * @param {Record<string,Record<string,string>>} [options.serviceEnv]  per-process overrides, e.g. { identity: { MONGODB_DB: 'x' } }
 * @param {(name: string, line: string, stream: 'stdout'|'stderr') => void} [options.onLogLine]  every log line, as it comes
 * @param {number} [options.healthTimeoutMs]
 * @param {AbortSignal} [options.signal]  aborts the start: what started is stopped, the promise rejects
 * @returns {Promise<Stack>}
 */
async function startStack({
  env = {},
  ports,
  logDir,
  log = () => {},
  serviceEnv = {},
  onLogLine,
  healthTimeoutMs = 60_000,
  signal: abortSignal,
}) {
  if (!ports || !logDir) throw new Error('startStack: ports and logDir are required');
  assertBuilt([...SERVICES, GATEWAY]);
  for (const def of [GATEWAY, ...SERVICES]) {
    if (!Number.isInteger(ports[def.name])) throw new Error(`startStack: no port for ${def.name}`);
  }
  fs.mkdirSync(logDir, { recursive: true });
  const base = { NODE_ENV: 'development', ...process.env, ...env };

  /** @type {ServiceProcess[]} */
  const processes = [];
  /** @type {Promise<void> | null} */
  let stopping = null;
  const stop = () => {
    stopping ??= (async () => {
      const gateway = processes.find((p) => p.name === GATEWAY.name);
      if (gateway) await stopProcess(gateway, log);
      await Promise.all(processes.filter((p) => p !== gateway).map((p) => stopProcess(p, log)));
    })();
    return stopping;
  };

  /** @type {(exit: UnexpectedExit) => void} */
  let reportExit = () => {};
  /** @type {Promise<UnexpectedExit>} */
  const exited = new Promise((resolve) => {
    reportExit = resolve;
  });
  /** @param {ServiceProcess} proc */
  const watch = (proc) => {
    proc.exited.then((info) => {
      if (!proc.stopping && !stopping) {
        reportExit({ name: proc.name, ...info, logFile: proc.logFile, tail: proc.tail() });
      }
    });
  };

  /** @param {ServiceEntry} def @param {Env} extra */
  const launch = async (def, extra) => {
    const port = /** @type {number} */ (ports[def.name]); // checked above
    if (!(await canListen(port))) {
      throw new Error(
        `${def.name}: port ${port} on ${HOST} is already in use (another restgate running?); set ${def.portEnv} to another port`,
      );
    }
    if (abortSignal?.aborted) throw abortError();
    const proc = spawnService({
      def,
      port,
      env: serviceEnvFor(def, { base, overrides: serviceEnv[def.name] ?? {}, port, extra }),
      logDir,
      onLogLine,
    });
    processes.push(proc);
    watch(proc);
    log(`started ${def.name} (pid ${proc.pid}) on ${proc.url}`);
    await waitHealthy(proc, healthTimeoutMs, abortSignal);
    return proc;
  };

  try {
    const results = await Promise.allSettled(SERVICES.map((def) => launch(def, {})));
    const failed = results.find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
    const upstreamUrls = Object.fromEntries(
      SERVICES.filter((def) => def.urlEnv).map((def) => [def.urlEnv, `http://${HOST}:${ports[def.name]}`]),
    );
    const gateway = await launch(GATEWAY, upstreamUrls);
    /**
     * One more process of a registry entry under a name of its own (`identity-b`), on `port`,
     * with `overrides` on top of its environment: stopped with the stack.
     * @param {ServiceEntry} def @param {{ name: string, port: number, overrides?: Env }} options
     */
    const startExtra = async (def, { name, port, overrides = {} }) => {
      ports[name] = port;
      const extra = def.name === GATEWAY.name ? upstreamUrls : {};
      return launch({ ...def, name }, { ...extra, ...(serviceEnv[def.name] ?? {}), ...overrides });
    };
    return { gatewayUrl: gateway.url, processes, exited, stop, startExtra };
  } catch (err) {
    await stop();
    throw err;
  }
}

module.exports = { startStack, portsFromEnv, formatLogLine, levelOf, parseLine, readRegistry, SERVICES, GATEWAY, SECRET_KEYS, HOST };
