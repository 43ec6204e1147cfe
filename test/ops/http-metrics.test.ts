import express, { type Express } from 'express';
import helmet from 'helmet';
import request from 'supertest';
import { createLogger, createMetrics, errors, type Metrics } from '@restgate/shared';
import { createHttpApp, defineRoute, type MetricsAccess } from '@restgate/shared/http';
import { capturingLogger, TEST_PRINCIPAL_SECRET } from '@restgate/shared/testing';

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
    expect(completionLine).toMatchObject({
      requestId: 'client-id-42',
      req: { id: 'client-id-42', url: '/logged' },
      res: { statusCode: 204 },
    });
  });

  test('when the client sends a malformed id, then a fresh one is generated and used', async () => {
    const res = await request(anApp()).get('/things/1').set('X-Request-Id', 'bad id with spaces');

    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('the access log', () => {
  const failing = defineRoute({
    method: 'get',
    path: '/broken',
    level: 'public',
    summary: 'fails',
    handler: async () => {
      throw new Error('boom');
    },
  });
  let entered: () => void = () => undefined;
  const slow = defineRoute({
    method: 'get',
    path: '/slow',
    level: 'public',
    summary: 'answers once the client has gone',
    handler: async ({ signal }) => {
      entered();
      await new Promise((resolve) => signal.addEventListener('abort', resolve));
      return { status: 204 };
    },
  });

  test('when a request fails on the server, then its one completion line is an error with the status', async () => {
    const { logger, lines } = capturingLogger();
    const app = createHttpApp({ logger, routes: [failing], principalSecret: TEST_PRINCIPAL_SECRET });

    const res = await request(app).get('/broken?x=1');

    expect(res.status).toBe(500);
    const completion = lines().filter((l) => l.req !== undefined);
    expect(completion).toHaveLength(1);
    expect(completion[0]).toMatchObject({
      level: 50,
      msg: 'request errored',
      requestId: res.headers['x-request-id'],
      req: { id: res.headers['x-request-id'], method: 'GET', url: '/broken?x=1' },
      res: { statusCode: 500 },
      err: { message: 'failed with status code 500' },
    });
    expect(typeof completion[0]!.responseTime).toBe('number');
  });

  test('when the client leaves before the answer, then the line says aborted', async () => {
    const { logger, lines } = capturingLogger();
    const app = createHttpApp({ logger, routes: [slow], principalSecret: TEST_PRINCIPAL_SECRET });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const { port } = server.address() as { port: number };

    const inHandler = new Promise<void>((resolve) => (entered = resolve));
    const controller = new AbortController();
    const call = fetch(`http://127.0.0.1:${port}/slow`, { signal: controller.signal }).catch(() => 'aborted');
    await inHandler;
    controller.abort();
    await call;
    for (let i = 0; i < 100 && !lines().some((l) => l.req !== undefined); i += 1) await new Promise((resolve) => setTimeout(resolve, 20));
    server.closeAllConnections();
    server.close();

    expect(lines().find((l) => l.req !== undefined)).toMatchObject({ msg: 'request completed', aborted: true, req: { url: '/slow' } });
  });

  test('when health probes and scrapes are answered, then they write no line', async () => {
    const { logger, lines } = capturingLogger();
    const app = createHttpApp({ logger, routes: [], principalSecret: TEST_PRINCIPAL_SECRET });

    await request(app).get('/health').expect(200);
    await request(app).get('/metrics').expect(200);
    await request(app).get('/nowhere').expect(404);

    expect(
      lines()
        .filter((l) => l.req !== undefined)
        .map((l) => (l.req as { url: string }).url),
    ).toEqual(['/nowhere']);
  });
});

describe('security headers', () => {
  test("when any response goes out, then it carries exactly the headers helmet's defaults set", async () => {
    const expected = express();
    expected.disable('x-powered-by');
    expected.use(helmet());
    expected.get('/x', (_req, res) => {
      res.end();
    });
    const fromHelmet = (await request(expected).get('/x')).headers;
    const helmetNames = Object.keys(fromHelmet).filter((name) => !['date', 'connection', 'content-length', 'keep-alive'].includes(name));

    const res = await request(anApp()).get('/things/1');

    expect(helmetNames.length).toBeGreaterThan(8);
    for (const name of helmetNames) expect([name, res.headers[name]]).toEqual([name, fromHelmet[name]]);
  });
});
