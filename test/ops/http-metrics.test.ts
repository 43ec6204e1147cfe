import type { Express } from 'express';
import request from 'supertest';
import { createHttpApp, createLogger, createMetrics, defineRoute, errors, type Metrics, type MetricsAccess } from '@restgate/shared';
import { TEST_PRINCIPAL_SECRET } from '@restgate/shared/testing';
import { capturingLogger } from './support/log-capture';

const silent = createLogger({ name: 'ops-test', level: 'silent' });

const routes = [
  defineRoute({
    method: 'get',
    path: '/things/:id',
    level: 'public',
    summary: 'one thing',
    handler: async () => ({ status: 200, body: { ok: true } }),
  }),
  defineRoute({
    method: 'delete',
    path: '/things/:id',
    level: 'public',
    summary: 'a failing delete',
    handler: async () => {
      throw errors.notFound();
    },
  }),
];

function anApp(options: { metrics?: Metrics; metricsAccess?: MetricsAccess } = {}): Express {
  return createHttpApp({ name: 'things', logger: silent, routes, principalSecret: TEST_PRINCIPAL_SECRET, ...options });
}

/** The value of one sample line of the exposition, e.g. `http_requests_total{method="GET",…}`. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  const wanted = `${name}{${Object.entries(labels)
    .map(([k, v]) => `${k}="${v}"`)
    .join(',')}}`;
  const line = text.split('\n').find((l) => l.startsWith(`${wanted} `));
  return line === undefined ? undefined : Number(line.slice(wanted.length + 1));
}

describe('GET /metrics', () => {
  test('when requests were answered, then they are counted by method, route pattern and status, never by raw URL', async () => {
    const app = anApp();
    await request(app).get('/things/a1').expect(200);
    await request(app).get('/things/b2').expect(200);
    await request(app).delete('/things/c3').expect(404);

    const res = await request(app).get('/metrics');

    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(sample(res.text, 'http_requests_total', { method: 'GET', route: '/things/:id', status: '200' })).toBe(2);
    expect(sample(res.text, 'http_requests_total', { method: 'DELETE', route: '/things/:id', status: '404' })).toBe(1);
    expect(sample(res.text, 'http_request_duration_seconds_count', { method: 'GET', route: '/things/:id', status: '200' })).toBe(2);
    expect(
      sample(res.text, 'http_request_duration_seconds_bucket', { le: '+Inf', method: 'GET', route: '/things/:id', status: '200' }),
    ).toBe(2);
    expect(res.text).not.toMatch(/a1|b2|c3/);
  });

  test('when a path matches no route, then it is counted as route "unmatched"', async () => {
    const app = anApp();
    await request(app).get('/no/such/path/123').expect(404);
    await request(app).post('/things/x').expect(405);

    const res = await request(app).get('/metrics');

    expect(sample(res.text, 'http_requests_total', { method: 'GET', route: 'unmatched', status: '404' })).toBe(1);
    expect(sample(res.text, 'http_requests_total', { method: 'POST', route: '/things/:id', status: '405' })).toBe(1);
    expect(res.text).not.toMatch(/no\/such\/path/);
  });

  test('when scraped, then the Node process series are there: event-loop lag, heap, CPU', async () => {
    const res = await request(anApp()).get('/metrics');

    for (const name of [
      'nodejs_eventloop_lag_seconds',
      'nodejs_eventloop_lag_p99_seconds',
      'nodejs_heap_size_used_bytes',
      'process_cpu_seconds_total',
    ]) {
      expect(res.text).toMatch(new RegExp(`^# TYPE ${name} `, 'm'));
    }
  });

  test('when two apps run in one process, then each counts only its own requests', async () => {
    const first = anApp();
    const second = anApp();
    await request(first).get('/things/1').expect(200);

    const res = await request(second).get('/metrics');

    expect(sample(res.text, 'http_requests_total', { method: 'GET', route: '/things/:id', status: '200' })).toBeUndefined();
  });

  test("when a service registers its own series, then they are served with the app's", async () => {
    const metrics = createMetrics();
    const sent = metrics.counter({ name: 'mail_sent_total', help: 'Mails sent.' });
    const backlog = metrics.gauge({ name: 'outbox_backlog', help: 'Outbox rows not yet published.', labelNames: ['queue'] as const });
    metrics.gauge({
      name: 'computed_at_scrape',
      help: 'Set by collect() when scraped.',
      async collect() {
        this.set(await Promise.resolve(7));
      },
    });
    sent.inc(3);
    backlog.set({ queue: 'mail' }, 5);
    const app = anApp({ metrics });

    const res = await request(app).get('/metrics');

    expect(res.text).toMatch(/^mail_sent_total 3$/m);
    expect(res.text).toMatch(/^outbox_backlog\{queue="mail"\} 5$/m);
    expect(res.text).toMatch(/^computed_at_scrape 7$/m);
    expect(() => metrics.counter({ name: 'mail_sent_total', help: 'again' })).toThrow(/already been registered/);
  });

  test('when another method is used, then 405 with Allow: GET, HEAD', async () => {
    const res = await request(anApp()).post('/metrics');

    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('GET, HEAD');
  });
});

describe('GET /metrics behind a token', () => {
  const token = 'metrics-token-that-is-long-enough-9f8e7d6c5b4a';

  test('when the bearer token is right, then 200 with the series', async () => {
    const res = await request(anApp({ metricsAccess: { bearer: token } }))
      .get('/metrics')
      .set('Authorization', `Bearer ${token}`);

    expect(res.status).toBe(200);
    expect(res.text).toMatch(/^# TYPE http_requests_total counter$/m);
  });

  test.each([
    ['no Authorization', undefined],
    ['a wrong token', `Bearer ${token.slice(0, -1)}x`],
    ['a longer token', `Bearer ${token}x`],
    ['Basic credentials', `Basic ${Buffer.from(`metrics:${token}`).toString('base64')}`],
  ])('when the request has %s, then the same 404 as an unknown path', async (_what, authorization) => {
    const app = anApp({ metricsAccess: { bearer: token } });
    const req = request(app).get('/metrics');
    const res = await (authorization ? req.set('Authorization', authorization) : req);

    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ status: 404, code: 'route_not_found' });
    expect(res.text).not.toMatch(/http_requests_total/);
  });

  test('when access is closed, then even a token gets 404', async () => {
    const res = await request(anApp({ metricsAccess: 'closed' }))
      .get('/metrics')
      .set('Authorization', `Bearer ${token}`);

    expect(res.status).toBe(404);
  });
});

describe('GET /health and /ready', () => {
  test('when a dependency is down, then /ready is 503 and names each check', async () => {
    const app = createHttpApp({
      logger: silent,
      readiness: [
        { name: 'mongodb', check: async () => undefined },
        { name: 'rabbitmq', check: () => Promise.reject(new Error('down')) },
      ],
    });

    const res = await request(app).get('/ready');

    expect(res.status).toBe(503);
    expect(res.body).toEqual({ status: 'unready', checks: { mongodb: 'up', rabbitmq: 'down' } });
  });

  test('when every dependency answers, then /ready is 200 and names each check', async () => {
    const app = createHttpApp({ logger: silent, readiness: [{ name: 'mongodb', check: async () => undefined }] });

    const res = await request(app).get('/ready');

    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ready', checks: { mongodb: 'up' } });
  });

  test('when another method is used on /health or /ready, then 405 and no route table sees it', async () => {
    const app = anApp();

    const health = await request(app).post('/health');
    const ready = await request(app).delete('/ready');

    expect(health.status).toBe(405);
    expect(ready.status).toBe(405);
    expect(ready.headers.allow).toBe('GET, HEAD');
  });
});

describe('X-Request-Id', () => {
  test('when the client sends a well-formed id, then it comes back and is on every log line of that request', async () => {
    const { logger, lines } = capturingLogger();
    const logging = defineRoute({
      method: 'get',
      path: '/logged',
      level: 'public',
      summary: 'logs a line',
      handler: async ({ log }) => {
        log.info('handler line');
        return { status: 204 };
      },
    });
    const app = createHttpApp({ logger, routes: [logging], principalSecret: TEST_PRINCIPAL_SECRET });

    const res = await request(app).get('/logged').set('X-Request-Id', 'client-id-42');

    expect(res.headers['x-request-id']).toBe('client-id-42');
    const handlerLine = lines().find((l) => l.msg === 'handler line');
    const completionLine = lines().find((l) => l.msg === 'request completed');
    expect(handlerLine).toMatchObject({ requestId: 'client-id-42' });
    expect(completionLine).toMatchObject({ requestId: 'client-id-42', req: { id: 'client-id-42', url: '/logged' }, res: { statusCode: 204 } });
  });

  test('when the client sends a malformed id, then a fresh one is generated and used', async () => {
    const res = await request(anApp()).get('/things/1').set('X-Request-Id', 'bad id with spaces');

    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});
