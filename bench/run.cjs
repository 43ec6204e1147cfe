#!/usr/bin/env node
'use strict';
// The benchmark: what the gateway hop costs, how much of the machine sign-in uses, and how the
// database holds up with 10,000 users and articles, as ratios measured in one run.
//
//   npx tsc -b && npm run bench [-- --seconds 5] [--rows 10000] [--url http://127.0.0.1:9000]
//
// Without --url it starts a stack of its own (scripts/lib/stack.cjs) on free loopback ports, with
// a MongoDB-compatible server, RabbitMQ and Redis from scripts/lib/backing.cjs (MONGODB_URL,
// AMQP_URL and REDIS_URL are honoured), and stops all of it at the end. Its rate limits are set
// far above what loopback can send, because the bench measures throughput and a limit would only
// turn it into 429s; everything else is the default, logging included: Argon2id at OWASP's costs.
//
// With --url it uses a running stack: MASTER_KEY from the environment or .env, the services at
// --identity-url / --articles-url (default: their registry ports). Its rate limits then apply.
// It writes users and articles into that stack's databases (MONGODB_URL, default
// mongodb://127.0.0.1:27017/, databases identity and articles) and does not remove them.
//
// Traffic goes to 127.0.0.1 only; every phase is bounded by --seconds, and the hop, the floors and
// the sign-in flood each follow WARM_UP_SECONDS of the same load, not measured. --only 2 (or 1,3) runs
// some of the nine parts (6: bench/lib/rules.cjs, what a rule costs a list page and a read; 7:
// bench/lib/realtime.cjs, 10,000 idle event streams and the fan-out of writes to 1,000 of them; 8:
// bench/lib/webhooks.cjs, deliveries/s at 100 endpoints against its floor, and one endpoint down; 9:
// bench/lib/audit.cjs, sign-in throughput with the audit log on and off, side by side); part 5 (bench/lib/embedded-db.cjs: the embedded database at
// --embedded-rows 10000,100000, the stack's FerretDB against FerretDB's own, p50 of
// --embedded-samples 15 and --embedded-stock-samples 3) takes its own two stacks, and many minutes; --profile <dir> has the gateway, identity and articles write CPU profiles
// there (open them in Chrome DevTools, or summarise them with bench/profile-top.cjs), from
// RESTGATE_CPU_PROFILE_DELAY_MS after their start if set. CPU per request and per sign-in comes
// from /proc, per process (identity's split into its event loop, its hashing threads and its helper
// threads: /proc/<pid>/task, the hashing ones by their nice), because on
// a shared machine it moves less than throughput. The services' own variables (HASH_WORKERS, …) pass through from the
// environment, to compare settings; RESTGATE_FERRETDB_BACKEND=sqlite|postgresql picks FerretDB's storage,
// and --ferret stock runs parts 1-4 on FerretDB's own build instead of the stack's patched one.

const { Worker } = require('node:worker_threads');
const { startBenchStack } = require('./lib/bench-stack.cjs');
const { embeddedDatabase } = require('./lib/embedded-db.cjs');
const { startMonolith } = require('./lib/monolith.cjs');
const { ruleCost } = require('./lib/rules.cjs');
const { realtimeBench } = require('./lib/realtime.cjs');
const { webhooksBench } = require('./lib/webhooks.cjs');
const { auditBench } = require('./lib/audit.cjs');
const { FLOORS, cpuMicros, startFloor } = require('./lib/floors.cjs');
const { pacedP50 } = require('./lib/http.cjs');
const { randomBytes } = require('node:crypto');
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const HOST = '127.0.0.1';
const log = (msg) => process.stderr.write(`[bench] ${msg}\n`);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
/** Load sent, and not measured, before each measured part: a fresh process runs slower while its JIT compiles. */
const WARM_UP_SECONDS = 2;

// ---------------------------------------------------------------------------------------------
// Options

function argValue(name) {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? undefined : process.argv[i + 1];
}

function numberOption(name, fallback, max) {
  const raw = argValue(name);
  const value = raw === undefined ? fallback : Number(raw);
  if (!Number.isFinite(value) || value <= 0 || value > max) throw new Error(`--${name} must be a number in (0, ${max}]`);
  return value;
}

function loopbackUrl(name, fallback) {
  const raw = argValue(name) ?? fallback;
  if (raw === undefined) return undefined;
  const url = new URL(raw);
  // Loopback only: a benchmark must never flood someone else's server.
  if (url.hostname !== HOST && url.hostname !== 'localhost') throw new Error(`--${name} must be on ${HOST}`);
  return url.origin;
}

// ---------------------------------------------------------------------------------------------
// HTTP helpers

const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });

/**
 * @param {string} base
 * @param {{ method?: string, path: string, headers?: Record<string, string | number>, body?: string, agent?: import('node:http').Agent }} options
 */
function request(base, { method = 'GET', path: urlPath, headers = {}, body, agent: chosen = agent }) {
  const url = new URL(urlPath, base);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: url.hostname, port: url.port, method, path: url.pathname + url.search, agent: chosen, headers },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.setTimeout(10_000, () => req.destroy(new Error(`${method} ${urlPath} timed out`)));
    req.on('error', reject);
    req.end(body);
  });
}

function jsonBody(value) {
  const body = JSON.stringify(value);
  return { body, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } };
}

function percentile(sorted, q) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

function stats(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  return { n: sorted.length, p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99), max: sorted[sorted.length - 1] ?? NaN };
}

/** autocannon's options for one load on `base`. */
/**
 * What a load run sends: one request shape, over `connections` connections.
 * @typedef {{ path: string, method?: string, headers?: Record<string, string | number>, body?: string, connections?: number, expect?: number }} LoadShape
 */

/**
 * @param {string} base
 * @param {LoadShape} shape
 */
function loadOptions(base, { path: urlPath, method = 'GET', headers, body, connections }) {
  // autocannon sets Content-Length itself; a second one would be a malformed request.
  const ownHeaders = Object.fromEntries(Object.entries(headers ?? {}).filter(([name]) => name !== 'content-length'));
  return { url: new URL(urlPath, base).href, method, headers: ownHeaders, body, connections };
}

/** autocannon for `seconds`; returns req/s of the expected status, p50/p99 in ms, and the others. */
/**
 * @param {string} base
 * @param {LoadShape & { seconds: number }} shape
 */
async function cannon(base, { path: urlPath, method = 'GET', headers, body, connections = 10, seconds, expect = 200 }) {
  const autocannon = require('autocannon');
  const result = await autocannon({ ...loadOptions(base, { path: urlPath, method, headers, body, connections }), duration: seconds });
  const good = result.statusCodeStats?.[String(expect)]?.count ?? 0;
  // Fail loudly rather than measure errors: a 429 or 500 here would make any number meaningless.
  const unexpected = Object.entries(result.statusCodeStats ?? {}).filter(([status]) => status !== String(expect));
  if (unexpected.length > 0 || result.errors > result.timeouts) {
    throw new Error(`${method} ${urlPath}: expected ${expect}, got ${JSON.stringify(result.statusCodeStats)} (errors ${result.errors})`);
  }
  // Too slow to answer within the phase is a result (the SQLite backend at 10,000 rows), not a failure.
  if (good === 0) return { rps: 0, p50: NaN, p99: NaN, requests: 0 };
  return { rps: good / seconds, p50: result.latency.p50, p99: result.latency.p99, requests: good };
}

/**
 * One autocannon flood, measured in a window of `seconds` after `warmUp` seconds of it: the
 * answers inside the window (req/s, p50/p99 in ms) and what `atStart` and `atEnd` return as it
 * opens and closes. Nothing starts or stops at either edge, so the work in flight as the window
 * opens (a compare already running, a request half way) equals, on average, the work in flight as
 * it closes. Two floods, one to warm up and one to measure, had the first one's abandoned compares
 * run into the second's window and the second one's pipeline fill inside it: at a few hundred ms
 * per sign-in, several per cent of a 5 s window.
 */
/**
 * @param {string} base
 * @param {LoadShape & { warmUp: number, seconds: number }} shape
 * @param {any} hooks
 */
async function steadyFlood(base, { path: urlPath, method = 'GET', headers, body, connections, warmUp, seconds, expect = 200 }, hooks) {
  const autocannon = require('autocannon');
  const latencies = [];
  const unexpected = {};
  let open = false;
  let started;
  let ended;
  const instance = autocannon({
    ...loadOptions(base, { path: urlPath, method, headers, body, connections }),
    // Past the window's end, so that it is not the flood's end; stopped there.
    duration: warmUp + seconds + 1,
  });
  const done = new Promise((resolve) => instance.once('done', resolve));
  instance.on('response', (client, status, bytes, ms) => {
    if (status !== expect) unexpected[status] = (unexpected[status] ?? 0) + 1;
    else if (open) latencies.push(ms);
  });
  try {
    await sleep(warmUp * 1000);
    started = { at: performance.now(), hooked: hooks.atStart() };
    open = true;
    await sleep(seconds * 1000);
    open = false;
    ended = { at: performance.now(), hooked: hooks.atEnd() };
  } finally {
    instance.stop();
  }
  const result = await done;
  // Fail loudly rather than measure errors: a 429 or 500 here would make any number meaningless.
  if (Object.keys(unexpected).length > 0 || result.errors > result.timeouts) {
    throw new Error(`${method} ${urlPath}: expected ${expect}, also got ${JSON.stringify(unexpected)} (errors ${result.errors})`);
  }
  const { p50, p99 } = stats(latencies);
  const windowSeconds = (ended.at - started.at) / 1000;
  return { rps: latencies.length / windowSeconds, p50, p99, requests: latencies.length, atStart: started.hooked, atEnd: ended.hooked };
}

/**
 * A process's CPU in microseconds, split by thread: `main` (the event loop), `niced` (threads
 * running at a nice above 0: identity's hashing workers, at HASH_WORKER_NICE) and `total` (the
 * process, exited threads included). What is left, total − main − niced, is the helper threads:
 * V8's platform threads (concurrent GC marking, JIT compilation) and libuv's pool. Null where
 * there is no such process.
 */
function cpuByThread(pid) {
  const total = cpuMicros(pid);
  if (total === null) return null;
  let main = 0;
  let niced = 0;
  for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      const fields = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8').split(') ')[1].split(' ');
      const micros = ((Number(fields[11]) + Number(fields[12])) * 1e6) / 100;
      // nice is field 19 of stat.
      if (tid === String(pid)) main = micros;
      else if (Number(fields[16]) > 0) niced += micros;
    } catch {
      // the thread ended meanwhile
    }
  }
  return { total, main, niced };
}

/**
 * CPU microseconds used so far by every process whose command name is one of `names` (PostgreSQL
 * runs one process per connection), summed by name.
 */
function cpuByName(names) {
  const totals = Object.fromEntries(names.map((n) => [n, 0]));
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      if (!(name in totals)) continue;
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      totals[name] += ((Number(fields[11]) + Number(fields[12])) * 1e6) / 100;
    } catch {
      // gone meanwhile
    }
  }
  return totals;
}

/** Runs `fn`, returning its result and the CPU microseconds each of `pids` used meanwhile. */
async function withCpu(pids, fn) {
  const before = pids.map(cpuMicros);
  const result = await fn();
  const used = pids.map((pid, i) => (before[i] === null ? NaN : cpuMicros(pid) - before[i]));
  return { result, used };
}

/**
 * GET `urlPath` every 100 ms until `stop()`, which gives the latencies in ms. A monitor's rate,
 * not a load: each probe costs the process it asks ~0.5-1 ms on this VM, and at every 20 ms they
 * took ~3 ms of CPU per sign-in from the processes the flood measures. It runs on a thread of its
 * own: on this process's event loop, autocannon's and the garbage collector's pauses were timed
 * as the services' (the same 30-43 ms maximum at identity and at the gateway in one flood).
 */
function probe(base, urlPath) {
  const worker = new Worker(path.join(__dirname, 'lib', 'probe-worker.cjs'), {
    workerData: { port: Number(new URL(base).port), path: urlPath, everyMs: 100 },
  });
  const samples = new Promise((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the ${urlPath} probe stopped (exit code ${code})`)));
  });
  return {
    async stop() {
      worker.postMessage('stop');
      try {
        return stats(await samples);
      } finally {
        await worker.terminate();
      }
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Raw Argon2id capacity: one worker thread per core, each verifying for `seconds`, at the costs
// identity hashes with (ARGON2_* from the environment, else its defaults: OWASP's).

const ARGON2_COSTS = {
  memoryKib: Number(process.env.ARGON2_MEMORY_KIB || 19456),
  iterations: Number(process.env.ARGON2_ITERATIONS || 2),
  parallelism: Number(process.env.ARGON2_PARALLELISM || 1),
};

const ARGON2_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const argon2 = require(workerData.argon2Path);
const { memoryKib, iterations, parallelism } = workerData.costs;
const hash = argon2.hashSync('bench-password-123', { algorithm: 2, memoryCost: memoryKib, timeCost: iterations, parallelism });
let n = 0;
const start = performance.now();
let last = start;
while (last - start < workerData.ms) { argon2.verifySync(hash, 'bench-password-123'); n += 1; last = performance.now(); }
parentPort.postMessage(n / ((last - start) / 1000));
`;

async function rawArgon2Capacity(seconds, costs) {
  const argon2Path = require.resolve('@node-rs/argon2', { paths: [path.join(ROOT, 'services', 'identity')] });
  const threads = os.availableParallelism();
  // Each thread's rate is its verifications over the time they took: none is cut off by the clock.
  const rates = await Promise.all(
    Array.from(
      { length: threads },
      () =>
        new Promise((resolve, reject) => {
          const w = new Worker(ARGON2_WORKER, { eval: true, workerData: { argon2Path, costs, ms: seconds * 1000 } });
          w.once('message', resolve);
          w.once('error', reject);
        }),
    ),
  );
  return { threads, perSecond: rates.reduce((a, b) => a + b, 0) };
}

/**
 * A process's resident set and its peak (VmRSS, VmHWM) in MiB; null where it can't be read.
 * @param {number} pid
 * @returns {{ rss: number, peak: number } | null}
 */
function memoryOf(pid) {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kib = (key) => Number(status.match(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm'))?.[1]);
    return { rss: kib('VmRSS') / 1024, peak: kib('VmHWM') / 1024 };
  } catch {
    return null;
  }
}

/** Starts a new peak (VmHWM) from the current resident set, so that the next reading is one window's. */
function resetPeak(pid) {
  try {
    fs.writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

// ---------------------------------------------------------------------------------------------
// The stack

function readDotEnv() {
  try {
    return Object.fromEntries(
      fs
        .readFileSync(path.join(ROOT, '.env'), 'utf8')
        .split('\n')
        .map((l) => l.match(/^([A-Z_][A-Z0-9_]*)=(.*)$/))
        .filter(Boolean)
        .map((m) => [m[1], m[2]]),
    );
  } catch {
    return {};
  }
}

async function ownStack(cleanups, profileDir) {
  const unlimited = '100000000/60';
  const ferret = argValue('ferret') ?? 'patched';
  if (ferret !== 'patched' && ferret !== 'stock') throw new Error('--ferret must be patched or stock');
  const own = await startBenchStack({
    cleanups,
    log,
    ferret,
    env: {
      // Loopback throughput, not abuse: limits far above anything this machine can send.
      RATE_LIMIT_ALL: unlimited,
      RATE_LIMIT_CREDENTIALS: unlimited,
      RATE_LIMIT_SIGN_UP: unlimited,
      // A try counts as a failure until its check ends, so 8 concurrent sign-ins of one account
      // from one address pass the back-off's 5 free failures: 429s, not throughput.
      PASSWORD_BACKOFF_FREE_FAILURES: '1000',
      HASH_QUEUE_MAX: '64',
      // Part 7 holds 10,000 streams from this one address, on one gateway.
      REALTIME_MAX_STREAMS_PER_ADDRESS: '20000',
      MAX_CONNECTIONS: '20000',
    },
    // --profile <dir>: the gateway and the services write V8 CPU profiles there when they stop.
    serviceEnv: profileDir
      ? Object.fromEntries(
          ['gateway', 'identity', 'articles'].map((name) => [
            name,
            {
              NODE_OPTIONS: `--require ${path.join(__dirname, 'cpu-profile.cjs')}`,
              RESTGATE_CPU_PROFILE_DIR: profileDir,
              RESTGATE_CPU_PROFILE_DELAY_MS: process.env.RESTGATE_CPU_PROFILE_DELAY_MS ?? '0',
            },
          ]),
        )
      : {},
  });
  return {
    gateway: own.stack.gatewayUrl,
    identity: own.url('identity'),
    articles: own.url('articles'),
    masterKey: own.masterKey,
    mongoUrl: own.mongoUrl,
    dbNames: own.dbNames,
    pids: own.pids,
    startExtra: own.stack.startExtra,
  };
}

function runningStack() {
  const env = { ...readDotEnv(), ...process.env };
  if (!env.MASTER_KEY) throw new Error('--url needs MASTER_KEY (in the environment or .env)');
  return {
    gateway: loopbackUrl('url'),
    identity: loopbackUrl('identity-url', `http://${HOST}:9001`),
    articles: loopbackUrl('articles-url', `http://${HOST}:9002`),
    masterKey: env.MASTER_KEY,
    mongoUrl: env.MONGODB_URL || 'mongodb://127.0.0.1:27017/',
    /** @type {Record<string, string>} */
    dbNames: { identity: env.IDENTITY_DB || 'identity', articles: env.ARTICLES_DB || 'articles' },
    /** A stack run elsewhere: no process of it is ours to measure. @type {Record<string, number>} */
    pids: {},
    /** Nor to add to. @type {undefined | import('../scripts/lib/stack.cjs').Stack['startExtra']} */
    startExtra: undefined,
  };
}

// ---------------------------------------------------------------------------------------------
// Data

async function signUp(stack, email, password) {
  const { body, headers } = jsonBody({ email, password, access_token: stack.masterKey });
  const res = await request(stack.gateway, { method: 'POST', path: '/users', headers, body });
  if (res.status !== 201) throw new Error(`POST /users answered ${res.status}: ${res.body}`);
  return JSON.parse(res.body);
}

async function signIn(stack, email, password) {
  const { body, headers } = jsonBody({ access_token: stack.masterKey });
  const res = await request(stack.gateway, {
    method: 'POST',
    path: '/auth',
    headers: { ...headers, authorization: `Basic ${Buffer.from(`${email}:${password}`).toString('base64')}` },
    body,
  });
  if (res.status !== 201) throw new Error(`POST /auth answered ${res.status}: ${res.body}`);
  return JSON.parse(res.body).token;
}

async function createArticle(stack, token, title) {
  const { body, headers } = jsonBody({ title, content: 'Benchmark article. '.repeat(20), access_token: token });
  const res = await request(stack.gateway, { method: 'POST', path: '/articles', headers, body });
  if (res.status !== 201) throw new Error(`POST /articles answered ${res.status}: ${res.body}`);
  return JSON.parse(res.body);
}

/**
 * Copies of one user and one article made through the API, inserted straight into the services'
 * databases (the API would spend minutes hashing 10,000 passwords); every user has the password.
 */
async function loadRows(db, template, count, vary) {
  const { ObjectId } = require('mongodb');
  const collection = db.collection(template.collection);
  const doc = await collection.findOne({ _id: new ObjectId(template.id) });
  if (!doc) throw new Error(`${template.collection} ${template.id} not found in ${db.databaseName}`);
  const base = Date.now() - count * 1000;
  for (let done = 0; done < count;) {
    const batch = [];
    for (let i = 0; i < 1000 && done < count; i += 1, done += 1) {
      const at = new Date(base + done * 1000);
      batch.push({ ...doc, _id: new ObjectId(), ...vary(done), createdAt: at, updatedAt: at });
    }
    await collection.insertMany(batch, { ordered: false });
  }
}

/** p50 of `fn` run sequentially `n` times, in ms. */
async function timeSequential(n, fn) {
  const samples = [];
  for (let i = 0; i < n; i += 1) {
    const t = process.hrtime.bigint();
    await fn(i);
    samples.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  return stats(samples);
}

// ---------------------------------------------------------------------------------------------
// Output

const rows = [];
const f1 = (n) => (Number.isFinite(n) ? n.toFixed(n >= 100 ? 0 : n >= 10 ? 1 : 2) : '–');
function row(section, what, value, note = '') {
  rows.push([section, what, value, note]);
  log(`${section} | ${what} | ${value} ${note}`);
}
function printTable() {
  const head = ['part', 'measure', 'value', 'note'];
  const lines = [head, head.map(() => '---'), ...rows].map((r) => `| ${r.join(' | ')} |`);
  process.stdout.write(`${lines.join('\n')}\n`);
}

async function loadAverage() {
  return os
    .loadavg()
    .map((n) => n.toFixed(2))
    .join(' ');
}

// ---------------------------------------------------------------------------------------------

async function main() {
  const seconds = numberOption('seconds', 5, 60);
  const count = numberOption('rows', 10_000, 1_000_000);
  // --only 2 or --only 1,3: some parts (the setup of the later ones still runs).
  const only = argValue('only')?.split(',');
  const part = (n) => !only || only.includes(String(n));
  if (!argValue('url') && !fs.existsSync(path.join(ROOT, 'gateway', 'dist', 'start.js'))) {
    throw new Error('not built: run `npx tsc -b` first');
  }
  const cleanups = [];
  const cleanup = async () => {
    for (const fn of cleanups.reverse()) await fn().catch((err) => log(`cleanup: ${err.message}`));
  };
  process.once('SIGINT', () => cleanup().finally(() => process.exit(130)));
  const { MongoClient } = require('mongodb');

  try {
    const stack = argValue('url') ? runningStack() : await ownStack(cleanups, argValue('profile') && path.resolve(argValue('profile')));
    const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
    log(`gateway ${stack.gateway}, identity ${stack.identity}, articles ${stack.articles}`);
    if (process.env.HASH_WORKERS || process.env.HASH_WORKER_NICE) {
      row(
        'machine',
        'HASH_WORKERS / HASH_WORKER_NICE',
        `${process.env.HASH_WORKERS ?? 'default'} / ${process.env.HASH_WORKER_NICE ?? 'default'}`,
      );
    }
    row('machine', 'cores, model', `${os.availableParallelism()}`, cpu);
    row('machine', 'load average at start', await loadAverage());

    const email = `bench.${randomBytes(4).toString('hex')}@example.test`;
    const password = 'bench-password-123';
    const user = await signUp(stack, email, password);
    const token = await signIn(stack, email, password);
    const article = await createArticle(stack, token, 'Benchmark article 0');

    // (1) the gateway hop. A/B rounds, so a neighbour's burst hits both sides alike.
    const hop = async (urlPath, expect, connections) => {
      const direct = [];
      const through = [];
      const cpu = { direct: 0, directN: 0, gateway: 0, upstream: 0, throughN: 0 };
      const pids = [stack.pids.gateway, stack.pids.articles];
      const half = Math.max(1, Math.round(seconds / 2));
      await cannon(stack.articles, { path: urlPath, expect, connections, seconds: WARM_UP_SECONDS / 2 });
      await cannon(stack.gateway, { path: urlPath, expect, connections, seconds: WARM_UP_SECONDS / 2 });
      for (let round = 0; round < 2; round += 1) {
        const d = await withCpu(pids, () => cannon(stack.articles, { path: urlPath, expect, connections, seconds: half }));
        direct.push(d.result);
        cpu.direct += d.used[1];
        cpu.directN += d.result.requests;
        const g = await withCpu(pids, () => cannon(stack.gateway, { path: urlPath, expect, connections, seconds: half }));
        through.push(g.result);
        cpu.gateway += g.used[0];
        cpu.upstream += g.used[1];
        cpu.throughN += g.result.requests;
      }
      const mean = (xs, k) => xs.reduce((a, x) => a + x[k], 0) / xs.length;
      const d = { rps: mean(direct, 'rps'), p50: mean(direct, 'p50'), p99: mean(direct, 'p99') };
      const g = { rps: mean(through, 'rps'), p50: mean(through, 'p50'), p99: mean(through, 'p99') };
      const label = `GET ${urlPath.replace(article.id, ':id')} (${connections} conn.)`;
      row('1 hop', `${label} direct req/s, p50/p99 ms`, `${f1(d.rps)}`, `${f1(d.p50)} / ${f1(d.p99)}`);
      row('1 hop', `${label} gateway req/s, p50/p99 ms`, `${f1(g.rps)}`, `${f1(g.p50)} / ${f1(g.p99)}`);
      row('1 hop', `${label} gateway / direct`, `**${(g.rps / d.rps).toFixed(2)}×**`, `load ${await loadAverage()}`);
      if (stack.pids.gateway) {
        row(
          '1 hop',
          `${label} CPU µs per request: articles direct; gateway + articles through it`,
          `${f1(cpu.direct / cpu.directN)}; ${f1(cpu.gateway / cpu.throughN)} + ${f1(cpu.upstream / cpu.throughN)}`,
        );
      }
      return { urlPath, expect, connections, label };
    };
    // A malformed id is a 404 before any database call.
    const hops = [];
    if (part(1)) hops.push(await hop('/articles/not-an-id', 404, 10));
    if (part(1)) hops.push(await hop(`/articles/${article.id}`, 200, 20));
    if (part(1) && stack.pids.articles) {
      // The floors (bench/lib/floors.cjs): the least a Node proxy can do (undici's pool;
      // http.request piped both ways), the least the gateway's own stack can do (fastify + undici),
      // and the stacks it ran on before (http-proxy-middleware, bare and under Express). On both paths, in A/B rounds with direct as
      // the gateway is (a ratio to a direct rate measured minutes earlier spread 0.73-1.00x on
      // GET /articles/:id over twelve runs): the most any gateway could show on this machine.
      for (const [kind, floorLabel] of FLOORS) {
        const floor = await startFloor(kind, stack.articles);
        cleanups.push(async () => floor.stop());
        for (const { urlPath, expect, connections, label } of hops) {
          const half = Math.max(1, Math.round(seconds / 2));
          const load = { path: urlPath, expect, connections, seconds: half };
          await cannon(floor.url, { ...load, seconds: WARM_UP_SECONDS / 2 });
          let directRps = 0;
          const proxied = { rps: 0, proxy: 0, articles: 0, requests: 0 };
          for (let round = 0; round < 2; round += 1) {
            directRps += (await cannon(stack.articles, load)).rps / 2;
            const b = await withCpu([floor.pid, stack.pids.articles], () => cannon(floor.url, load));
            proxied.rps += b.result.rps / 2;
            proxied.proxy += b.used[0];
            proxied.articles += b.used[1];
            proxied.requests += b.result.requests;
          }
          row(
            '1 hop',
            `${label} ${floorLabel}: req/s, / direct; CPU µs per request proxy + articles`,
            `${f1(proxied.rps)}, ${(proxied.rps / directRps).toFixed(2)}×`,
            `${f1(proxied.proxy / proxied.requests)} + ${f1(proxied.articles / proxied.requests)}`,
          );
        }
        // What the floor adds to a request's latency when nothing queues, as the gateway's below.
        const pacedDirect = await pacedP50(stack.articles, { path: '/articles/not-an-id', rate: 200, seconds, expect: 404 });
        const pacedFloor = await pacedP50(floor.url, { path: '/articles/not-an-id', rate: 200, seconds, expect: 404 });
        row(
          '1 hop',
          `${floorLabel}: added p50 at 200 req/s (p50 direct / through it ms)`,
          `${(pacedFloor - pacedDirect).toFixed(2)} ms`,
          `${f1(pacedDirect)} / ${f1(pacedFloor)}`,
        );
        floor.stop();
      }
    }
    if (part(1)) {
      const pacedDirect = await pacedP50(stack.articles, { path: '/articles/not-an-id', rate: 200, seconds, expect: 404 });
      const pacedGateway = await pacedP50(stack.gateway, { path: '/articles/not-an-id', rate: 200, seconds, expect: 404 });
      row('1 hop', 'GET /articles/not-an-id at 200 req/s: p50 direct / gateway ms', `${f1(pacedDirect)} / ${f1(pacedGateway)}`);
      row('1 hop', 'gateway-added p50 at 200 req/s', `**${(pacedGateway - pacedDirect).toFixed(2)} ms**`, `load ${await loadAverage()}`);
    }

    // (2) sign-in vs the machine's raw Argon2id capacity, /health and identity's memory during the flood.
    const signInRequest = {
      method: 'POST',
      path: '/auth',
      ...jsonBody({ access_token: stack.masterKey }),
      expect: 201,
    };
    signInRequest.headers = { ...signInRequest.headers, authorization: `Basic ${Buffer.from(`${email}:${password}`).toString('base64')}` };
    if (part(2)) {
      const raw = await rawArgon2Capacity(seconds, ARGON2_COSTS);
      const { memoryKib, iterations, parallelism } = ARGON2_COSTS;
      row(
        '2 sign-in',
        `raw Argon2id m=${memoryKib} KiB, t=${iterations}, p=${parallelism}, ${raw.threads} threads`,
        `${f1(raw.perSecond)} verifications/s`,
        `load ${await loadAverage()}`,
      );
      // One flood, warmed up before its window opens: a fresh process's first seconds of sign-ins
      // cost more (the JIT compiles as they run; successive floods on one stack cost identity
      // 4.7, 3.5, 3.1, 3.1 ms per sign-in).
      // Where a sign-in's CPU goes (its check runs in identity's hashing threads): what is not
      // Argon2id is what keeps sign-ins/s below the raw capacity.
      const backing = ['ferretdb', 'postgres', 'redis-server'];
      const snapshot = () => ({
        gateway: cpuMicros(stack.pids.gateway),
        identity: stack.pids.identity ? cpuByThread(stack.pids.identity) : null,
        backing: cpuByName(backing),
      });
      // The probes time the window, as everything else here is measured after its warm-up.
      let probes = [];
      let flood;
      let ih;
      let gh;
      /** @type {{ rss: number, peak: number } | null} */
      let rssBefore = null;
      let peakReset = false;
      try {
        flood = await steadyFlood(
          stack.gateway,
          { ...signInRequest, connections: 8, warmUp: WARM_UP_SECONDS, seconds },
          {
            atStart: () => {
              probes = [probe(stack.identity, '/health'), probe(stack.gateway, '/health')];
              if (stack.pids.identity) {
                rssBefore = memoryOf(stack.pids.identity);
                peakReset = resetPeak(stack.pids.identity);
              }
              return snapshot();
            },
            atEnd: snapshot,
          },
        );
      } finally {
        [ih, gh] = await Promise.all(probes.map((p) => p.stop()));
      }
      const [before, after] = [flood.atStart, flood.atEnd];
      row('2 sign-in', 'POST /auth (8 conn.) sign-ins/s, p50/p99 ms', `${f1(flood.rps)}`, `${f1(flood.p50)} / ${f1(flood.p99)}`);
      row('2 sign-in', 'sign-ins/s / raw capacity', `**${(flood.rps / raw.perSecond).toFixed(2)}×**`, `load ${await loadAverage()}`);
      if (before.identity && after.identity && flood.requests > 0) {
        const perSignIn = (micros) => f1(micros / flood.requests / 1000);
        // The hashing threads are told apart by their nice; with HASH_WORKER_NICE=0 they can't
        // be, and count with the helpers.
        const loop = after.identity.main - before.identity.main;
        const hashing = after.identity.niced - before.identity.niced;
        const helpers = after.identity.total - before.identity.total - loop - hashing;
        row(
          '2 sign-in',
          'CPU ms per sign-in: one raw verification; identity event loop; its hashing threads; its helper threads (GC, JIT, libuv); gateway; ' +
            backing.join(', '),
          `${f1((1000 * raw.threads) / raw.perSecond)}; ${perSignIn(loop)}; ${perSignIn(hashing)}; ${perSignIn(helpers)}; ${perSignIn(after.gateway - before.gateway)}; ${backing
            .map((n) => perSignIn(after.backing[n] - before.backing[n]))
            .join('; ')}`,
        );
      }
      const rssAfter = stack.pids.identity ? memoryOf(stack.pids.identity) : null;
      if (rssBefore && rssAfter) {
        row(
          '2 sign-in',
          "identity's RSS before the flood; its peak during it (MiB)",
          `${f1(rssBefore.rss)}; **${f1(rssAfter.peak)}**`,
          // Without a reset (another user's process), the peak is the process's whole life's.
          `${peakReset ? 'VmHWM reset at the window start' : 'VmHWM since start'}; Argon2id holds ${f1(memoryKib / 1024)} MiB per running hash`,
        );
      }
      // Against the generator-rest monolith (bench/monolith) on the same database server, in
      // alternating rounds after a warm-up of each, so that a neighbour's burst hits both alike.
      const monolith = await startMonolith({
        mongoUrl: stack.mongoUrl,
        port: await require('../scripts/lib/backing.cjs').freePort(),
        log,
        cleanups,
      });
      const monolithUser = jsonBody({ email, password, access_token: monolith.masterKey });
      const made = await request(monolith.url, { method: 'POST', path: '/users', ...monolithUser });
      if (made.status !== 201) throw new Error(`the monolith's POST /users answered ${made.status}: ${made.body}`);
      const monolithSignIn = { ...signInRequest, ...jsonBody({ access_token: monolith.masterKey }) };
      monolithSignIn.headers = { ...monolithSignIn.headers, authorization: signInRequest.headers.authorization };
      await cannon(monolith.url, { ...monolithSignIn, connections: 8, seconds: WARM_UP_SECONDS });
      const pair = { restgate: 0, monolith: 0, restgateCpu: 0, monolithCpu: 0, restgateN: 0, monolithN: 0 };
      // CPU of the processes serving a sign-in, the database's included (by name: every
      // FerretDB, PostgreSQL and Redis process on the machine, as above).
      const withServingCpu = async (pids, fn) => {
        const atStart = cpuByName(backing);
        const { result, used } = await withCpu(pids, fn);
        const atEnd = cpuByName(backing);
        const cpu = used.reduce((a, b) => a + b, 0) + backing.reduce((a, n) => a + atEnd[n] - atStart[n], 0);
        return { result, cpu };
      };
      const restgatePids = [stack.pids.gateway, stack.pids.identity].filter(Boolean);
      for (let round = 0; round < 2; round += 1) {
        const r = await withServingCpu(restgatePids, () => cannon(stack.gateway, { ...signInRequest, connections: 8, seconds }));
        const m = await withServingCpu([monolith.pid], () => cannon(monolith.url, { ...monolithSignIn, connections: 8, seconds }));
        pair.restgate += r.result.rps / 2;
        pair.monolith += m.result.rps / 2;
        pair.restgateCpu += r.cpu;
        pair.monolithCpu += m.cpu;
        pair.restgateN += r.result.requests;
        pair.monolithN += m.result.requests;
      }
      row(
        '2 sign-in',
        'POST /auth (8 conn.) sign-ins/s: restgate / the generator-rest monolith (native bcrypt cost 9), 2 alternating rounds',
        `**${(pair.restgate / pair.monolith).toFixed(2)}×**`,
        `${f1(pair.restgate)} / ${f1(pair.monolith)}; CPU ms per sign-in, with the database's: ${f1(pair.restgateCpu / pair.restgateN / 1000)} / ${f1(pair.monolithCpu / pair.monolithN / 1000)}; load ${await loadAverage()}`,
      );
      row(
        '2 sign-in',
        'GET /health p99 during the flood, identity / gateway',
        `**${f1(ih.p99)} / ${f1(gh.p99)} ms**`,
        // The probes are part of each process's CPU above: per sign-in, ih.n / flood.requests of them.
        `p50 ${f1(ih.p50)} / ${f1(gh.p50)}, max ${f1(ih.max)} / ${f1(gh.max)}, ${ih.n} / ${gh.n} probes`,
      );
    }

    // (3) list and create
    if (part(3)) {
      const list = await cannon(stack.gateway, { path: '/articles?limit=30', connections: 20, seconds });
      row('3 list/create', 'GET /articles?limit=30 (20 conn.) req/s, p50/p99 ms', `${f1(list.rps)}`, `${f1(list.p50)} / ${f1(list.p99)}`);
      const create = await cannon(stack.gateway, {
        method: 'POST',
        path: '/articles',
        ...jsonBody({ title: 'Bench', content: 'Benchmark article. '.repeat(20), access_token: token }),
        connections: 20,
        seconds,
        expect: 201,
      });
      row('3 list/create', 'POST /articles (20 conn.) req/s, p50/p99 ms', `${f1(create.rps)}`, `${f1(create.p50)} / ${f1(create.p99)}`);
    }

    // (4) with `count` users and articles loaded
    if (part(4)) {
      const client = new MongoClient(stack.mongoUrl);
      cleanups.push(() => client.close());
      const identityDb = client.db(stack.dbNames.identity);
      const articlesDb = client.db(stack.dbNames.articles);
      const loadStarted = Date.now();
      await loadRows(identityDb, { collection: 'users', id: user.id }, count, (i) => ({
        email: `loaded.${i}@example.test`,
        name: `loaded ${i}`,
      }));
      await loadRows(articlesDb, { collection: 'articles', id: article.id }, count, (i) => ({ title: `Loaded article ${i}` }));
      row('4 loaded', `rows loaded (users + articles)`, `${count} + ${count}`, `${((Date.now() - loadStarted) / 1000).toFixed(1)} s`);
      const { ObjectId } = require('mongodb');
      // Rows from the middle: a scan (FerretDB's SQLite backend uses no index) reads half the collection.
      const early = await articlesDb
        .collection('articles')
        .find({ title: `Loaded article ${Math.floor(count / 2)}` })
        .limit(1)
        .next();
      const middleEmail = `loaded.${Math.floor(count / 2)}@example.test`;
      const byEmail = await timeSequential(100, () => identityDb.collection('users').findOne({ email: middleEmail }));
      const byId = await timeSequential(100, () => articlesDb.collection('articles').findOne({ _id: new ObjectId(early._id) }));
      row('4 loaded', 'database part: users.findOne({ email }) p50/p99 ms', `**${f1(byEmail.p50)}**`, f1(byEmail.p99));
      row('4 loaded', 'database part: articles.findOne({ _id }) p50/p99 ms', `**${f1(byId.p50)}**`, f1(byId.p99));
      const loadedSignIn = await cannon(stack.gateway, {
        ...signInRequest,
        headers: { ...signInRequest.headers, authorization: `Basic ${Buffer.from(`${middleEmail}:${password}`).toString('base64')}` },
        connections: 8,
        seconds,
      });
      row(
        '4 loaded',
        'POST /auth (8 conn.) sign-ins/s, p50/p99 ms',
        `${f1(loadedSignIn.rps)}`,
        `${f1(loadedSignIn.p50)} / ${f1(loadedSignIn.p99)}`,
      );
      const loadedGet = await cannon(stack.gateway, { path: `/articles/${early._id.toHexString()}`, connections: 20, seconds });
      row(
        '4 loaded',
        'GET /articles/:id (20 conn.) req/s, p50/p99 ms',
        `${f1(loadedGet.rps)}`,
        `${f1(loadedGet.p50)} / ${f1(loadedGet.p99)}`,
      );
      // One listing at a time: what a single reader waits for (a sorted page and its count).
      const oneList = await timeSequential(5, async () => {
        const res = await request(stack.gateway, { path: '/articles?limit=30&page=2' });
        if (res.status !== 200) throw new Error(`GET /articles answered ${res.status}`);
      });
      row('4 loaded', 'GET /articles?limit=30&page=2 alone, p50/max ms', `${f1(oneList.p50)}`, f1(oneList.max));
      // The same page without its count (count=false), a filtered page, and the page after a cursor.
      const alone = async (path) => {
        let last;
        const timing = await timeSequential(5, async () => {
          last = await request(stack.gateway, { path });
          if (last.status !== 200) throw new Error(`GET ${path} answered ${last.status}`);
        });
        return { ...timing, res: last };
      };
      const uncounted = await alone('/articles?limit=30&page=2&count=false');
      row('4 loaded', 'GET /articles?limit=30&page=2&count=false alone, p50/max ms', `**${f1(uncounted.p50)}**`, f1(uncounted.max));
      row('4 loaded', 'listing page: with count / without, p50 ratio', `**${(oneList.p50 / uncounted.p50).toFixed(2)}**`);
      const filtered = await alone(
        `/articles?limit=30&count=false&title[prefix]=${encodeURIComponent(`Loaded article ${Math.floor(count / 2)}`)}`,
      );
      row('4 loaded', 'GET /articles?title[prefix]=… (a few rows match) alone, p50/max ms', `**${f1(filtered.p50)}**`, f1(filtered.max));
      const firstPage = await request(stack.gateway, { path: '/articles?limit=30&count=false' });
      const next = /<([^>]*)>; rel="next"/.exec(firstPage.headers.link ?? '')?.[1];
      const cursorPage = await alone(next);
      row(
        '4 loaded',
        'GET /articles?after=<cursor of page 1>&count=false alone, p50/max ms',
        `**${f1(cursorPage.p50)}**`,
        f1(cursorPage.max),
      );
      const loadedList = await cannon(stack.gateway, { path: '/articles?limit=30&page=2', connections: 20, seconds });
      row(
        '4 loaded',
        'GET /articles?limit=30&page=2 (20 conn.) req/s, p50/p99 ms',
        `${f1(loadedList.rps)}`,
        `${f1(loadedList.p50)} / ${f1(loadedList.p99)}`,
      );
    }
    // (6) what a rule costs a read: 10,000 records, half readable
    if (part(6)) await ruleCost({ mongoUrl: stack.mongoUrl, samples: numberOption('rule-samples', 60, 10_000), log, row });

    // (7) realtime through one gateway: idle streams, fan-out, where the curve bends, the floor
    if (part(7)) {
      await realtimeBench({
        gateway: stack.gateway,
        pid: stack.pids.gateway,
        token,
        seconds,
        idle: numberOption('realtime-idle', 10_000, 19_000),
        fan: numberOption('realtime-streams', 1_000, 10_000),
        rate: numberOption('realtime-rate', 20, 1_000),
        log,
        row,
      });
    }

    // (8) webhooks from one webhooks replica: deliveries/s at 100 endpoints and its floor; one endpoint down
    if (part(8)) {
      await webhooksBench({
        gateway: stack.gateway,
        masterKey: stack.masterKey,
        mongoUrl: stack.mongoUrl,
        token,
        seconds,
        burstSize: numberOption('webhook-burst', 50, 1_000),
        rate: numberOption('webhook-rate', 2, 100),
        log,
        row,
      });
    }

    // (9) sign-in with the audit log on and off, side by side (a second gateway and identity of
    // this stack's, with AUDIT_EVENTS=false); a stack of its own only.
    if (part(9) && stack.startExtra) {
      await auditBench({
        gateway: stack.gateway,
        startExtra: stack.startExtra,
        masterKey: stack.masterKey,
        mongoUrl: stack.mongoUrl,
        auditDb: stack.dbNames.audit ?? 'audit',
        identityDb: stack.dbNames.identity,
        email,
        password,
        seconds,
        rounds: numberOption('audit-rounds', 5, 50),
        log,
        row,
      });
    }

    // (5) the embedded database at 10,000 and 100,000 articles: the stack's FerretDB against
    // FerretDB's own, each in a stack of its own.
    if (part(5)) {
      const sizes = (argValue('embedded-rows') ?? '10000,100000').split(',').map(Number);
      if (sizes.some((n) => !Number.isInteger(n) || n < 100 || n > 1_000_000))
        throw new Error('--embedded-rows: sizes from 100 to 1000000');
      await embeddedDatabase({
        sizes,
        samples: numberOption('embedded-samples', 15, 1000),
        stockSamples: numberOption('embedded-stock-samples', 3, 1000),
        log,
        row,
      });
    }
    row('machine', 'load average at end', await loadAverage());
  } finally {
    if (rows.length > 0) printTable();
    agent.destroy();
    await cleanup();
  }
}

main().catch((err) => {
  log(`error: ${err.stack || err.message}`);
  process.exitCode = 1;
});
