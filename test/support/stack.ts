/**
 * The whole stack as processes, for contract tests: identity, articles and the gateway from
 * their built `dist/start.js`, on free ports, each service with a database of its own and fresh
 * random secrets. One stack per test file (beforeAll / afterAll).
 *
 * Needs the build (`npx tsc -b`, which `npm test` runs) and jest's global setup (MONGODB_URL).
 *
 * Every response that the tests' clients (test/support/http.ts) get from the stack is checked
 * against the gateway's own GET /openapi.json when the stack stops: `stop()` fails with the list
 * of responses the document does not describe (test/support/response-check.ts).
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import amqplib from 'amqplib';
import { MongoClient, type Db } from 'mongodb';
import type { OpenApiDocument } from '@restgate/shared/openapi';
import { mailTopology } from '../../services/mailer/src/amqp/mail.topology';
import { recordExchanges, stopRecording } from './http';
import { checkExchanges } from './response-check';

// The scripts `npm start` uses (plain Node, typed with JSDoc), so the tests start the stack the way users do.
import * as stackLib from '../../scripts/lib/stack.cjs';
import type { Stack } from '../../scripts/lib/stack.cjs';
import * as backingLib from '../../scripts/lib/backing.cjs';

const ROOT_DIR = path.resolve(__dirname, '..', '..');

/** A registry service that owns a database (`db()` opens this stack's copy of it). */
export type ServiceName = 'identity' | 'articles' | 'mailer' | (string & {});

export interface TestSecrets {
  MASTER_KEY: string;
  JWT_SECRET: string;
  PRINCIPAL_SECRET: string;
  MFA_ENCRYPTION_KEY: string;
  WEBHOOK_ENCRYPTION_KEY: string;
}

export interface TestStack {
  /** The gateway's base URL, e.g. http://127.0.0.1:40123 */
  url: string;
  secrets: TestSecrets;
  /** What the gateway and identity expect in tokens (the defaults of their config). */
  jwt: { issuer: string; audience: string };
  /** The service's own database, to assert side effects (and their absence). */
  db: (service: ServiceName) => Db;
  /** Where the mailer writes each mail as `<message id>.eml` (no SMTP server in the contract stack). */
  outboxDir: string;
  /** The gateway's GET /openapi.json, fetched once the stack is up. */
  openapi: OpenApiDocument;
  /**
   * One more gateway replica on the same services, secrets and Redis (a free port; `env` on top),
   * as a second replica behind a load balancer would run. The caller stops it.
   */
  startGateway: (env?: Record<string, string>) => Promise<ExtraGateway>;
  /**
   * Stops everything, then rejects when a recorded response does not match `openapi` (so a test
   * file that starts more than the stack closes it in a `finally`).
   */
  stop: () => Promise<void>;
}

export interface ExtraGateway {
  url: string;
  stop: () => Promise<void>;
}

function secret(): string {
  return randomBytes(32).toString('base64url');
}

/** Warns when a package's sources are newer than its last build: the test would run old code. */
function warnIfStale(dirs: string[]): void {
  const newest = (dir: string): number => {
    let latest = 0;
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      latest = Math.max(latest, entry.isDirectory() ? newest(full) : fs.statSync(full).mtimeMs);
    }
    return latest;
  };
  const stale = dirs.filter((dir) => {
    const buildInfo = path.join(ROOT_DIR, dir, 'tsconfig.tsbuildinfo');
    const src = path.join(ROOT_DIR, dir, 'src');
    return fs.existsSync(buildInfo) && fs.existsSync(src) && newest(src) > fs.statSync(buildInfo).mtimeMs;
  });
  if (stale.length > 0) {
    process.stderr.write(`[contract] sources changed since the last build in ${stale.join(', ')}: run \`npx tsc -b\` first\n`);
  }
}

/**
 * Deletes the queues and exchange a stack declared under its own topology prefix, so that runs
 * against a long-lived broker leave nothing behind. Best effort: teardown never fails on it.
 */
export async function deleteTopology(url: string, prefix: string): Promise<void> {
  const topology = mailTopology({ prefix });
  let connection: amqplib.ChannelModel | undefined;
  try {
    connection = await amqplib.connect(url);
    connection.on('error', () => {});
    const names = [topology.queue, topology.deadQueue, ...topology.retryQueues.map((q) => q.name)];
    for (const op of [
      ...names.map((name) => (ch: amqplib.Channel) => ch.deleteQueue(name)),
      (ch: amqplib.Channel) => ch.deleteExchange(topology.exchange),
    ]) {
      // A failed operation closes its channel, so each gets its own.
      const channel = await connection.createChannel();
      channel.on('error', () => {});
      await op(channel).catch(() => undefined);
      await channel.close().catch(() => undefined);
    }
  } catch {
    // the broker is gone or refuses: nothing to clean up then
  } finally {
    await connection?.close().catch(() => undefined);
  }
}

/**
 * The merged document, once every upstream has sent its part (the gateway marks a document
 * built without one, and serves it only briefly).
 */
async function fetchOpenApi(gatewayUrl: string, timeoutMs = 15_000): Promise<OpenApiDocument> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let why: string;
    try {
      const res = await fetch(new URL('/openapi.json', gatewayUrl), { signal: AbortSignal.timeout(5_000) });
      const doc = res.ok ? ((await res.json()) as OpenApiDocument) : undefined;
      const missing = doc?.['x-restgate-missing-upstreams'];
      if (doc && !missing) return doc;
      why = doc ? `it lacks the parts of ${JSON.stringify(missing)}` : `it answered ${res.status}`;
    } catch (err) {
      why = (err as Error).message;
    }
    if (Date.now() > deadline) throw new Error(`GET ${gatewayUrl}/openapi.json gave no complete document within ${timeoutMs} ms: ${why}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Starts the stack; rejects with the failing service's log tail when one does not come up. */
export async function startTestStack(
  options: {
    env?: Record<string, string>;
    /** Every line every process writes (stdout and stderr), as it comes: a test can read the logs. */
    onLogLine?: (name: string, line: string) => void;
  } = {},
): Promise<TestStack> {
  const mongoUrl = process.env.MONGODB_URL;
  if (!mongoUrl) throw new Error('MONGODB_URL is not set: run the contract tests through jest (its global setup provisions MongoDB)');
  const defs = [stackLib.GATEWAY, ...stackLib.SERVICES];
  const missing = defs.map((d) => path.join(d.dir, 'dist', 'start.js')).filter((f) => !fs.existsSync(path.join(ROOT_DIR, f)));
  if (missing.length > 0) {
    throw new Error(
      `The contract tests run the built services, and ${missing.join(', ')} is missing: run \`npx tsc -b\` first (npm test does).`,
    );
  }
  warnIfStale(['shared', ...defs.map((d) => d.dir)]);

  const suffix = randomBytes(5).toString('hex');
  const amqpUrl = process.env.AMQP_URL;
  const secrets: TestSecrets = {
    MASTER_KEY: secret(),
    JWT_SECRET: secret(),
    PRINCIPAL_SECRET: secret(),
    MFA_ENCRYPTION_KEY: secret(),
    WEBHOOK_ENCRYPTION_KEY: secret(),
  };
  // A database of this stack's own for every registry service that owns one.
  const dbNames: Record<string, string> = Object.fromEntries(
    stackLib.SERVICES.filter((def) => def.owns?.database).map((def) => [def.name, `contract_${def.name.replace(/\W/g, '_')}_${suffix}`]),
  );
  const ports: Record<string, number> = {};
  for (const def of defs) ports[def.name] = await backingLib.freePort();
  const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'restgate-contract-'));
  const outboxDir = path.join(logDir, 'outbox');

  // Server-side errors (an unexpected 500, say) are shown with the test output, not only in a log file.
  const errorLines: string[] = [];
  const onLogLine = (name: string, line: string) => {
    options.onLogLine?.(name, line);
    const record = stackLib.parseLine(line);
    if (record ? stackLib.levelOf(record) >= 50 : line.trim()) errorLines.push(`[${name}] ${stackLib.formatLogLine(line)}`);
  };

  let stackEnv: Record<string, string>;
  let stack: Stack;
  try {
    stack = await stackLib.startStack({
      env: (stackEnv = {
        ...secrets,
        NODE_ENV: 'test',
        MONGODB_URL: mongoUrl,
        ...(amqpUrl ? { AMQP_URL: amqpUrl } : {}),
        ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
        // Counters of our own in a Redis other test files (and their stacks) share.
        REDIS_KEY_PREFIX: `contract-${suffix}`,
        // Queues of our own on a broker other test files (and their stacks) share.
        TOPOLOGY_PREFIX: `contract-${suffix}.`,
        // The mailer writes .eml files, in a folder of this stack's own.
        SMTP_URL: '',
        OUTBOX_DIR: outboxDir,
        LOG_LEVEL: 'warn',
        // Webhook receivers of the tests listen on loopback; retries come within a second.
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        WEBHOOK_RETRY_SCHEDULE: '200ms,200ms,200ms',
        WEBHOOK_POLL_MS: '100',
        ARGON2_MEMORY_KIB: '1024',
        ARGON2_ITERATIONS: '1',
        // The mail's default link is this stack's own reset page, so a test can open it as a user does.
        RESET_DEFAULT_PAGE: `http://127.0.0.1:${ports[stackLib.GATEWAY.name]}/password-resets`,
        EMAIL_VERIFICATION_PAGE: `http://127.0.0.1:${ports[stackLib.GATEWAY.name]}/email-verifications`,
        ...options.env,
      }),
      ports,
      logDir,
      serviceEnv: Object.fromEntries(Object.entries(dbNames).map(([name, db]) => [name, { MONGODB_DB: db }])),
      onLogLine,
    });
  } catch (err) {
    fs.rmSync(logDir, { recursive: true, force: true });
    throw err;
  }

  let openapi: OpenApiDocument;
  try {
    openapi = await fetchOpenApi(stack.gatewayUrl);
  } catch (err) {
    await stack.stop().catch(() => undefined);
    fs.rmSync(logDir, { recursive: true, force: true });
    throw err;
  }
  const exchanges = recordExchanges(stack.gatewayUrl);

  let client: MongoClient | undefined;
  const db = (service: ServiceName): Db => {
    client ??= new MongoClient(mongoUrl, { serverSelectionTimeoutMS: 5_000 });
    const name = dbNames[service];
    if (!name) throw new Error(`${service} owns no database in services.json`);
    return client.db(name);
  };

  const topologyPrefix = options.env?.TOPOLOGY_PREFIX ?? `contract-${suffix}.`;
  const stop = async () => {
    await stack.stop();
    if (amqpUrl && topologyPrefix) await deleteTopology(amqpUrl, topologyPrefix);
    if (errorLines.length > 0) process.stderr.write(`[contract] error lines logged by the stack:\n${errorLines.join('\n')}\n`);
    if (client) {
      await Promise.allSettled(Object.values(dbNames).map((name) => client!.db(name).dropDatabase()));
      await client.close();
    }
    if (process.env.RESTGATE_KEEP_LOGS) process.stderr.write(`[contract] logs kept in ${logDir}\n`);
    else fs.rmSync(logDir, { recursive: true, force: true });
    // Last, so that a mismatch fails the test file (from its afterAll) with everything cleaned up.
    stopRecording(stack.gatewayUrl);
    const report = checkExchanges(openapi, exchanges);
    if (report) throw new Error(report);
  };

  const startGateway = async (env: Record<string, string> = {}): Promise<ExtraGateway> => {
    const port = await backingLib.freePort();
    const upstreams = Object.fromEntries(
      stack.processes.filter((p) => p.name !== stackLib.GATEWAY.name).map((p) => [`${p.name.toUpperCase()}_URL`, p.url]),
    );
    const child = spawn(process.execPath, [path.join(ROOT_DIR, stackLib.GATEWAY.dir, 'dist', 'start.js')], {
      env: { ...process.env, ...stackEnv, ...upstreams, ...env, PORT: String(port), HOST: '127.0.0.1' },
      stdio: 'ignore',
    });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const url = `http://127.0.0.1:${port}`;
    const stopGateway = async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    };
    const deadline = Date.now() + 30_000;
    for (;;) {
      const ok = await fetch(`${url}/health`, { signal: AbortSignal.timeout(2_000) }).then(
        (res) => res.ok,
        () => false,
      );
      if (ok) return { url, stop: stopGateway };
      if (child.exitCode !== null || Date.now() > deadline) {
        await stopGateway();
        throw new Error(`the extra gateway on ${url} did not come up`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };

  return {
    url: stack.gatewayUrl,
    secrets,
    jwt: { issuer: 'restgate', audience: 'restgate-api' },
    db,
    outboxDir,
    openapi,
    startGateway,
    stop,
  };
}
