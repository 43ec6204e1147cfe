/**
 * The stack as `npm start` runs it (scripts/lib/stack.cjs): request ids across processes and
 * logs, the metrics of each service and of the gateway, and readiness that names its checks.
 */
import { randomBytes } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { deleteTopology } from '../support/stack';
import { aSecret, backing, call, readLogLines, tempDir, waitForLogLine } from './support/processes';
import { readRegistry, routedServices } from '../../gateway/src/registry';
import * as stackLib from '../../scripts/lib/stack.cjs';
import type { ServiceProcess } from '../../scripts/lib/service-process.cjs';

const METRICS_TOKEN = aSecret();
const suffix = randomBytes(4).toString('hex');
// A database of this run's own for every registry service that owns one.
const dbNames: Record<string, string> = Object.fromEntries(
  stackLib.SERVICES.filter((def) => def.owns?.database).map((def) => [def.name, `ops_${def.name.replace(/\W/g, '_')}_${suffix}`]),
);
const topologyPrefix = `ops-${suffix}.`;
const logs = tempDir('stack');

let gatewayUrl: string;
let processes: ServiceProcess[];
let stopStack: () => Promise<void>;

function proc(name: string): ServiceProcess {
  const found = processes.find((p) => p.name === name);
  if (!found) throw new Error(`no ${name} process in the stack`);
  return found;
}

/** One sample of the exposition, e.g. `http_requests_total{method="GET",route="/articles",status="200"}`. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  const wanted = `${name}{${Object.entries(labels)
    .map(([k, v]) => `${k}="${v}"`)
    .join(',')}}`;
  const line = text.split('\n').find((l) => l.startsWith(`${wanted} `));
  return line === undefined ? undefined : Number(line.slice(wanted.length + 1));
}

beforeAll(async () => {
  const mongoUrl = process.env.MONGODB_URL;
  if (!mongoUrl) throw new Error('MONGODB_URL is not set: run through jest (its global setup provisions MongoDB)');
  const ports: Record<string, number> = {};
  for (const def of [stackLib.GATEWAY, ...stackLib.SERVICES]) ports[def.name] = await backing.freePort();
  const amqpUrl = process.env.AMQP_URL;
  if (!amqpUrl) throw new Error('AMQP_URL is not set: run through jest (its global setup provisions RabbitMQ)');
  const stack = await stackLib.startStack({
    env: {
      NODE_ENV: 'test',
      LOG_LEVEL: 'info',
      MONGODB_URL: mongoUrl,
      AMQP_URL: amqpUrl,
      // Queues of our own on the shared broker; the mailer writes .eml files into this run's folder.
      TOPOLOGY_PREFIX: topologyPrefix,
      SMTP_URL: '',
      OUTBOX_DIR: `${logs.dir}/outbox`,
      MASTER_KEY: aSecret(),
      JWT_SECRET: aSecret(),
      PRINCIPAL_SECRET: aSecret(),
      WEBHOOK_ENCRYPTION_KEY: aSecret(),
      ARGON2_MEMORY_KIB: '1024',
      ARGON2_ITERATIONS: '1',
    },
    ports,
    logDir: logs.dir,
    serviceEnv: {
      gateway: { METRICS_TOKEN },
      ...Object.fromEntries(Object.entries(dbNames).map(([name, db]) => [name, { MONGODB_DB: db }])),
    },
  });
  ({ gatewayUrl, processes, stop: stopStack } = stack);
}, 90_000);

afterAll(async () => {
  await stopStack?.();
  if (process.env.AMQP_URL) await deleteTopology(process.env.AMQP_URL, topologyPrefix);
  const client = new MongoClient(process.env.MONGODB_URL ?? '', { serverSelectionTimeoutMS: 5_000 });
  await Promise.allSettled(Object.values(dbNames).map((name) => client.db(name).dropDatabase()));
  await client.close();
  logs.cleanup();
});

describe('X-Request-Id across the stack', () => {
  test("when the client sends one, then it comes back and is on the gateway's and the service's log lines of that request", async () => {
    const requestId = `ops-${randomBytes(6).toString('hex')}`;

    const res = await call(`${gatewayUrl}/articles?q=nothing-${suffix}`, { headers: { 'X-Request-Id': requestId } });

    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBe(requestId);
    const articlesLog = proc('articles').logFile;
    const serviceLine = await waitForLogLine(
      () => readLogLines(articlesLog),
      (l) => l.requestId === requestId,
    );
    expect(serviceLine).toMatchObject({ service: 'articles', msg: 'request completed', req: { id: requestId, method: 'GET' } });
    const gatewayLog = proc('gateway').logFile;
    const gatewayLine = await waitForLogLine(
      () => readLogLines(gatewayLog),
      (l) => l.requestId === requestId,
    );
    expect(gatewayLine).toMatchObject({ service: 'gateway', res: { statusCode: 200 } });
  });

  test('when the client sends none, then the gateway makes one and the service logs that one', async () => {
    const res = await call(`${gatewayUrl}/articles/0123456789abcdef01234567`);
    const requestId = res.headers.get('x-request-id');

    expect(res.status).toBe(404);
    expect(res.json()).toMatchObject({ requestId });
    const articlesLog = proc('articles').logFile;
    expect(
      await waitForLogLine(
        () => readLogLines(articlesLog),
        (l) => l.requestId === requestId,
      ),
    ).toMatchObject({ res: { statusCode: 404 } });
  });
});

describe('GET /metrics', () => {
  test.each(['identity', 'articles'])('when %s is scraped on its own port, then the HTTP and process series are there', async (name) => {
    await call(`${gatewayUrl}/${name === 'identity' ? 'users/0123456789abcdef01234567' : 'articles'}`);

    const res = await call(`${proc(name).url}/metrics`);

    expect(res.status).toBe(200);
    for (const series of [
      'http_requests_total',
      'http_request_duration_seconds',
      'nodejs_eventloop_lag_seconds',
      'process_resident_memory_bytes',
    ]) {
      expect(res.text).toMatch(new RegExp(`^# TYPE ${series} `, 'm'));
    }
    const route = name === 'identity' ? '/users/:id' : '/articles';
    const status = name === 'identity' ? '404' : '200';
    expect(sample(res.text, 'http_requests_total', { method: 'GET', route, status })).toBeGreaterThanOrEqual(1);
  });

  test('when identity and the mailer are scraped, then the outbox backlog and the mail counters are there', async () => {
    const [identity, mailer] = await Promise.all([call(`${proc('identity').url}/metrics`), call(`${proc('mailer').url}/metrics`)]);

    expect(identity.text).toMatch(/^identity_outbox_pending \d+$/m);
    for (const series of ['mail_sent_total', 'mail_failed_total', 'mail_dead_lettered_total']) {
      expect(mailer.text).toMatch(new RegExp(`^${series} \\d+$`, 'm'));
    }
  });

  test('when the gateway is scraped with its token, then it counts by policy row, not by URL', async () => {
    await call(`${gatewayUrl}/articles/0123456789abcdef01234567`);

    const res = await call(`${gatewayUrl}/metrics`, { headers: { Authorization: `Bearer ${METRICS_TOKEN}` } });

    expect(res.status).toBe(200);
    expect(sample(res.text, 'http_requests_total', { method: 'GET', route: '/articles/:id', status: '404' })).toBeGreaterThanOrEqual(1);
    expect(res.text).not.toMatch(/0123456789abcdef01234567/);
  });

  test.each([
    ['no token', {}],
    ['a wrong token', { Authorization: `Bearer ${aSecret()}` }],
    ['Basic credentials', { Authorization: 'Basic bWV0cmljczptZXRyaWNz' }],
  ])('when the gateway is asked with %s, then 404, as for any unknown path', async (_what, headers) => {
    const res = await call(`${gatewayUrl}/metrics`, { headers });

    expect(res.status).toBe(404);
    expect(res.json()).toMatchObject({ status: 404, code: 'route_not_found' });
  });
});

describe('GET /health and /ready', () => {
  test("when asked through the gateway, then the gateway answers itself, naming its upstreams (a service's own /ready is never proxied)", async () => {
    const ready = await call(`${gatewayUrl}/ready`);
    const health = await call(`${gatewayUrl}/health`);

    expect(ready.status).toBe(200);
    const routed = routedServices(readRegistry()).map((s) => [s.name, 'up']);
    expect(ready.json()).toEqual({ status: 'ready', checks: { ...Object.fromEntries(routed), redis: 'up', revocations: 'up' } });
    expect(health.json()).toEqual({ status: 'ok' });
  });

  test.each([
    ['identity', { mongodb: 'up', redis: 'up' }],
    ['articles', { mongodb: 'up' }],
  ])('when %s is asked on its own port, then /ready names its database check (and identity Redis)', async (name, checks) => {
    const res = await call(`${proc(name).url}/ready`);

    expect(res.status).toBe(200);
    expect(res.json()).toEqual({ status: 'ready', checks });
  });
});
