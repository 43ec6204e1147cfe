'use strict';
// Starts restgate's own processes (the upstream services, then the gateway) and stops them again.
// Used by `npm start` and by the contract tests. Node built-ins only.
//
// Each service runs as `node <dir>/dist/start.js` in its own process group, so a Ctrl-C in the
// terminal reaches only the script that started it, and that script stops the services in order,
// once, gracefully (a service that gets a second signal while stopping exits at once).

const { spawn } = require('node:child_process');
const fs = require('node:fs');
const http = require('node:http');
const net = require('node:net');
const path = require('node:path');
const { readTail } = require('./backing.cjs');

const ROOT_DIR = path.resolve(__dirname, '..', '..');
const HOST = '127.0.0.1';

/**
 * The service registry, services.json at the root: `gateway` and `services` (the upstream
 * services, started in parallel before the gateway). A generated resource service adds one entry.
 * - `dir`: the package folder (entry `<dir>/dist/start.js`);
 * - `portEnv` / `port`: the variable that overrides its port in `npm start`, and the default;
 * - `urlEnv`: the variable through which the gateway learns its address (none for a service
 *   the gateway does not route to, such as a message consumer);
 * - `owns`: its database (and queues);
 * - `secrets`: the secrets it may see (every other secret is withheld from it).
 */
function readRegistry(rootDir = ROOT_DIR) {
  const file = path.join(rootDir, 'services.json');
  const registry = JSON.parse(fs.readFileSync(file, 'utf8'));
  const entries = [registry.gateway, ...(Array.isArray(registry.services) ? registry.services : [])];
  for (const def of entries) {
    const ok =
      def &&
      typeof def.name === 'string' &&
      typeof def.dir === 'string' &&
      Number.isInteger(def.port) &&
      typeof def.portEnv === 'string' &&
      Array.isArray(def.secrets);
    if (!ok) throw new Error(`${file}: every entry needs name, dir, port, portEnv and secrets (${JSON.stringify(def)})`);
  }
  return registry;
}

const REGISTRY = readRegistry();
const SERVICES = REGISTRY.services;
const GATEWAY = REGISTRY.gateway;

/** Keys only the processes that list them in `secrets` receive: MASTER_KEY reaches the gateway alone. */
const SECRET_KEYS = [...new Set([...GATEWAY.secrets, ...SERVICES.flatMap((s) => s.secrets)])];

// A service stops by itself within DRAIN_DELAY_MS + 2 × SHUTDOWN_TIMEOUT_MS + 5 s (serving on
// while load balancers notice, in-flight requests, then what it opened), exiting 1 past that;
// SIGKILL comes only after it failed to do even that.
const DEFAULT_SHUTDOWN_TIMEOUT_MS = 10_000;
const stopGraceMs = (env) =>
  (Number(env.DRAIN_DELAY_MS) || 0) + 2 * (Number(env.SHUTDOWN_TIMEOUT_MS) || DEFAULT_SHUTDOWN_TIMEOUT_MS) + 6_000;
const TAIL_LINES = 40;
const PINO_LEVELS = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 };

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves with `promise`'s value, or with `onTimeout` after `ms`; never keeps the process alive. */
function within(promise, ms, onTimeout) {
  let timer;
  const timeout = new Promise((resolve) => {
    timer = setTimeout(() => resolve(onTimeout), ms);
    timer.unref();
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

// ---------------------------------------------------------------------------------------------
// Log lines

/** The numeric pino level of a parsed log record (the services log the label, pino's default is the number). */
function levelOf(record) {
  if (typeof record.level === 'number') return record.level;
  return PINO_LEVELS[record.level] ?? 30;
}

function parseLine(line) {
  if (!line.startsWith('{')) return null;
  try {
    const record = JSON.parse(line);
    return record && typeof record === 'object' ? record : null;
  } catch {
    return null;
  }
}

/** One compact human line for a JSON log line: "WARN message (code=…, requestId=…): error". */
function formatLogLine(line) {
  const record = parseLine(line);
  if (!record) return line;
  const level = Object.keys(PINO_LEVELS).find((k) => PINO_LEVELS[k] === levelOf(record)) ?? String(record.level);
  const context = [];
  if (record.code) context.push(`code=${record.code}`);
  const reqId = record.requestId ?? record.req?.id;
  if (reqId) context.push(`requestId=${reqId}`);
  if (record.req?.method) context.push(`${record.req.method} ${record.req.url}`);
  if (record.res?.statusCode) context.push(`status=${record.res.statusCode}`);
  const err =
    typeof record.err === 'string'
      ? record.err
        ? `: ${record.err}`
        : ''
      : record.err
        ? `: ${record.err.type ?? 'Error'}: ${record.err.message ?? ''}`
        : '';
  const problems = Array.isArray(record.problems) ? ` [${record.problems.join('; ')}]` : '';
  return `${level.toUpperCase()} ${record.msg ?? ''}${context.length ? ` (${context.join(', ')})` : ''}${err}${problems}`;
}

// ---------------------------------------------------------------------------------------------
// Processes

/** Every service process this module started and that is still running. */
const live = new Set();

// If the caller exits without stop() (an uncaught error, process.exit), the services must not
// outlive it: they run in their own process groups, so nothing else would end them.
process.once('exit', () => {
  for (const proc of live) proc.signal('SIGTERM');
});

function canListen(port, host = HOST) {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}

function healthOk(port) {
  return new Promise((resolve) => {
    const req = http.get({ host: HOST, port, path: '/health', timeout: 1000, agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.once('timeout', () => req.destroy());
    req.once('error', () => resolve(false));
  });
}

/** Calls `onLine` for every complete line of `stream`. */
function eachLine(stream, onLine) {
  let buffered = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk) => {
    buffered += chunk;
    let newline;
    while ((newline = buffered.indexOf('\n')) >= 0) {
      onLine(buffered.slice(0, newline));
      buffered = buffered.slice(newline + 1);
    }
  });
  stream.on('end', () => {
    if (buffered) onLine(buffered);
  });
}

/** Keeps the previous run's log as `<file>.1`, so a restart after a crash does not erase it. */
function rotate(logFile) {
  try {
    fs.renameSync(logFile, `${logFile}.1`);
  } catch {
    // no previous log
  }
}

/**
 * Starts one process of the stack. Its stdout and stderr go to `<name>.log`: through this process
 * when someone wants every line (`onLogLine`: `npm start` mirrors them, the tests read them),
 * otherwise straight into the file, so that a benchmark's load generator does not also relay
 * every access line of the stack it measures.
 */
function spawnService({ def, port, env, logDir, onLogLine }) {
  const script = path.join(ROOT_DIR, def.dir, 'dist', 'start.js');
  const logFile = path.join(logDir, `${def.name}.log`);
  rotate(logFile);
  const relay = Boolean(onLogLine);
  const logStream = relay ? fs.createWriteStream(logFile, { flags: 'w' }) : null;
  const logFd = relay ? null : fs.openSync(logFile, 'w');
  const child = spawn(process.execPath, [script], {
    cwd: ROOT_DIR,
    env,
    stdio: relay ? ['ignore', 'pipe', 'pipe'] : ['ignore', logFd, logFd],
    detached: process.platform !== 'win32',
  });
  // The child has its own copy of the descriptor.
  if (logFd !== null) fs.closeSync(logFd);
  const tailLines = [];
  const lastLines = () =>
    relay
      ? tailLines
      : readTail(logFile, 64 * 1024, TAIL_LINES)
          .split('\n')
          .filter(Boolean);
  const proc = {
    name: def.name,
    pid: child.pid,
    port,
    url: `http://${HOST}:${port}`,
    logFile,
    stopGraceMs: stopGraceMs(env),
    exitInfo: null,
    stopping: false,
    tail: () => lastLines().map(formatLogLine).join('\n'),
    signal(sig) {
      if (proc.exitInfo) return;
      try {
        process.kill(process.platform === 'win32' ? child.pid : -child.pid, sig);
      } catch {
        try {
          child.kill(sig);
        } catch {
          // already gone
        }
      }
    },
  };
  const onLine = (stream) => (line) => {
    logStream.write(`${line}\n`);
    tailLines.push(line);
    if (tailLines.length > TAIL_LINES) tailLines.shift();
    onLogLine(def.name, line, stream);
  };
  if (relay) {
    eachLine(child.stdout, onLine('stdout'));
    eachLine(child.stderr, onLine('stderr'));
  }

  const closed = new Promise((resolve) => child.once('close', resolve));
  proc.exited = new Promise((resolve) => {
    child.once('error', (err) => {
      proc.exitInfo = { code: null, signal: null, error: err.message };
      resolve(proc.exitInfo);
    });
    child.once('exit', (code, signal) => {
      proc.exitInfo = { code, signal };
      resolve(proc.exitInfo);
    });
  }).then(async (info) => {
    live.delete(proc);
    // Let the pipes drain into the log (bounded: a grandchild could hold them open).
    await within(closed, 1000);
    if (logStream) await new Promise((resolve) => logStream.end(resolve));
    return info;
  });
  live.add(proc);
  return proc;
}

function describeExit(info) {
  if (!info) return 'running';
  if (info.error) return info.error;
  return info.signal ? `signal ${info.signal}` : `exit code ${info.code}`;
}

/** Waits for GET /health to answer 200; fails at once, with the log tail, if the process exits. */
async function waitHealthy(proc, timeoutMs, abortSignal) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (abortSignal?.aborted) throw abortError();
    if (proc.exitInfo) {
      throw new Error(
        `${proc.name} exited (${describeExit(proc.exitInfo)}) before it was healthy; log ${proc.logFile}\n` +
          `--- last lines of ${proc.name} ---\n${proc.tail()}`,
      );
    }
    if (await healthOk(proc.port)) return;
    await sleep(100);
  }
  throw new Error(
    `${proc.name} did not answer GET /health within ${Math.round(timeoutMs / 1000)} s; log ${proc.logFile}\n` +
      `--- last lines of ${proc.name} ---\n${proc.tail()}`,
  );
}

function abortError() {
  const err = new Error('start aborted');
  err.name = 'AbortError';
  return err;
}

async function stopProcess(proc, log) {
  if (proc.exitInfo) return proc.exited;
  const graceMs = proc.stopGraceMs;
  proc.stopping = true;
  proc.signal('SIGTERM');
  const timedOut = await within(
    proc.exited.then(() => false),
    graceMs,
    true,
  );
  if (timedOut) {
    log(`${proc.name} (pid ${proc.pid}) still running ${graceMs / 1000} s after SIGTERM; sending SIGKILL`);
    proc.signal('SIGKILL');
  }
  return proc.exited;
}

/** The environment of one service: shared env minus the secrets it may not see, plus its own. */
function serviceEnvFor(def, { base, overrides, port, extra }) {
  const env = { ...base };
  for (const key of SECRET_KEYS) if (!def.secrets.includes(key)) delete env[key];
  return { ...env, ...extra, ...overrides, PORT: String(port), HOST };
}

function assertBuilt(defs) {
  // The gateway reads the route specs of the services it routes to from their build (dist/api.js).
  const files = defs.flatMap((d) => [path.join(d.dir, 'dist', 'start.js'), ...(d.urlEnv ? [path.join(d.dir, 'dist', 'api.js')] : [])]);
  const missing = files.filter((f) => !fs.existsSync(path.join(ROOT_DIR, f)));
  if (missing.length > 0) {
    throw new Error(`not built: ${missing.join(', ')} missing. Run \`npx tsc -b\` (npm start and npm test do it for you).`);
  }
}

/** The port of each process, from `env` (`PORT`, `IDENTITY_PORT`, …) or the defaults 9000, 9001, … */
function portsFromEnv(env) {
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
 * @param {Record<string,string>} options.env  shared environment (secrets, MONGODB_URL, AMQP_URL, LOG_LEVEL…); laid over process.env
 * @param {Record<string,number>} options.ports  port per process name (gateway, identity, articles)
 * @param {string} options.logDir  where `<name>.log` goes (the JSON lines of stdout and stderr)
 * @param {(msg: string) => void} [options.log]  progress messages
 * @param {Record<string,Record<string,string>>} [options.serviceEnv]  per-process overrides, e.g. { identity: { MONGODB_DB: 'x' } }
 * @param {(name: string, line: string, stream: 'stdout'|'stderr') => void} [options.onLogLine]  every log line, as it comes
 * @param {number} [options.healthTimeoutMs]
 * @param {AbortSignal} [options.signal]  aborts the start: what started is stopped, the promise rejects
 * @returns {Promise<{ gatewayUrl: string, processes: object[], exited: Promise<object>, stop: () => Promise<void> }>}
 *   `exited` resolves with `{ name, code, signal, tail, logFile }` when a process exits that nobody stopped.
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

  const processes = [];
  let stopping = null;
  const stop = () => {
    stopping ??= (async () => {
      const gateway = processes.find((p) => p.name === GATEWAY.name);
      if (gateway) await stopProcess(gateway, log);
      await Promise.all(processes.filter((p) => p !== gateway).map((p) => stopProcess(p, log)));
    })();
    return stopping;
  };

  let reportExit;
  const exited = new Promise((resolve) => {
    reportExit = resolve;
  });
  const watch = (proc) => {
    proc.exited.then((info) => {
      if (!proc.stopping && !stopping) {
        reportExit({ name: proc.name, ...info, logFile: proc.logFile, tail: proc.tail() });
      }
    });
  };

  const launch = async (def, extra) => {
    const port = ports[def.name];
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
    return { gatewayUrl: gateway.url, processes, exited, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

module.exports = { startStack, portsFromEnv, formatLogLine, levelOf, parseLine, readRegistry, SERVICES, GATEWAY, SECRET_KEYS, HOST };
