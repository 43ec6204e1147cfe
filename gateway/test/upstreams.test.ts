import { Writable } from 'node:stream';
import pino from 'pino';
import request from 'supertest';
import { REDACTED_PATHS } from '@restgate/shared';
import { startGateway, type TestGateway } from './support/gateway';
import { ROUTED_SERVICES } from './support/routes';
import { aUserToken, TEST_MASTER_KEY } from './support/tokens';
import { hang, refusingUrl, silentUrl, startUpstream, type TestUpstream } from './support/upstream';

let identity: TestUpstream;
let articles: TestUpstream;

beforeAll(async () => {
  identity = await startUpstream((received, res) => {
    // identity answers a problem of its own for this path: the gateway must pass it through.
    if (received.url.startsWith('/users/0123456789abcdef01234567')) {
      res.writeHead(404, { 'content-type': 'application/problem+json; charset=utf-8', 'x-service': 'identity' });
      res.end('{"type":"urn:restgate:problem:not_found","title":"Not found","status":404,"code":"not_found"}');
      return;
    }
    res.writeHead(201, { 'content-type': 'application/json' }).end('{"id":"x"}');
  });
  articles = await startUpstream();
});

afterAll(async () => {
  await Promise.all([identity.close(), articles.close()]);
});

/** Every routed service of the registry but identity (a generated resource, say) is served by `articles`. */
const otherUpstreams = () =>
  Object.fromEntries(ROUTED_SERVICES.filter((s) => s.name !== 'identity').map((s) => [s.urlEnv, articles.url]));

/** /ready's checks with every routed service up, but for `overrides`. */
const checks = (overrides: Record<string, string> = {}) => ({
  ...Object.fromEntries(ROUTED_SERVICES.map((s) => [s.name, 'up'])),
  ...overrides,
});

async function withGateway(env: Record<string, string>, act: (gateway: TestGateway) => Promise<void>): Promise<void> {
  const gateway = startGateway({ ...otherUpstreams(), IDENTITY_URL: identity.url, ...env });
  try {
    await act(gateway);
  } finally {
    gateway.close();
  }
}

describe('upstream answers', () => {
  test('when the service answers a problem, then status, type and body pass through unchanged', () =>
    withGateway({}, async (gateway) => {
      const res = await request(gateway.app).get('/users/0123456789abcdef01234567');

      expect(res.status).toBe(404);
      expect(res.headers['content-type']).toBe('application/problem+json; charset=utf-8');
      expect(res.headers['x-service']).toBe('identity');
      expect(res.text).toBe('{"type":"urn:restgate:problem:not_found","title":"Not found","status":404,"code":"not_found"}');
    }));

  test('when the service answers 201, then the client gets 201 and its body', () =>
    withGateway({}, async (gateway) => {
      const res = await request(gateway.app).post('/users').query({ access_token: TEST_MASTER_KEY }).send({ email: 'a@example.test' });

      expect(res.status).toBe(201);
      expect(res.body).toEqual({ id: 'x' });
    }));
});

describe('upstream failures', () => {
  test('when the service refuses connections, then 502 at once, without internal addresses', async () => {
    const down = await refusingUrl();
    await withGateway({ ARTICLES_URL: down, UPSTREAM_TIMEOUT_MS: '10000' }, async (gateway) => {
      const started = Date.now();
      const res = await request(gateway.app).get('/articles');

      expect(res.status).toBe(502);
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.body).toMatchObject({ status: 502, code: 'bad_gateway' });
      expect(res.text).not.toMatch(/127\.0\.0\.1|ECONNREFUSED|:\d{4,5}/);
    });
  });

  test('when the connection dies before an answer, then a GET is sent again and answered, a POST is 502 and sent once', async () => {
    // Like a replica SIGKILLed with the request in flight: the first try of each request loses
    // its connection, the next one (a replica still up) answers.
    const tries = new Map<string, number>();
    const dying = await startUpstream((received, res) => {
      const key = `${received.method} ${received.url}`;
      const n = (tries.get(key) ?? 0) + 1;
      tries.set(key, n);
      if (n === 1) {
        res.socket?.destroy();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ try: n }));
    });
    try {
      await withGateway({ ARTICLES_URL: dying.url }, async (gateway) => {
        const get = await request(gateway.app).get('/articles/0123456789abcdef01234567');
        const post = await request(gateway.app).post('/articles').set('Authorization', `Bearer ${aUserToken()}`).send({ title: 'x' });

        expect(get.status).toBe(200);
        expect(get.body).toEqual({ try: 2 });
        expect(post.status).toBe(502);
        expect(post.body).toMatchObject({ status: 502, code: 'bad_gateway' });
        expect(dying.received.map((r) => r.method)).toEqual(['GET', 'GET', 'POST']);
      });
    } finally {
      await dying.close();
    }
  });

  test('when a connection to the service is not made within UPSTREAM_CONNECT_TIMEOUT_MS, then the request goes again and ends 502, not at the client', async () => {
    const silent = await silentUrl();
    try {
      await withGateway({ ARTICLES_URL: silent.url, UPSTREAM_CONNECT_TIMEOUT_MS: '200', UPSTREAM_TIMEOUT_MS: '60000' }, async (gateway) => {
        const res = await request(gateway.app).post('/articles').set('Authorization', `Bearer ${aUserToken()}`).send({ title: 'x' });

        expect(res.status).toBe(502);
        expect(res.body).toMatchObject({ status: 502, code: 'bad_gateway' });
      });
    } finally {
      silent.close();
    }
    // Without the connect timeout, each of the three tries would wait undici's 10 s: past this test's limit.
  }, 10_000);

  test('when every try of a GET loses its connection, then 502 after three tries', async () => {
    const dead = await startUpstream((_received, res) => res.socket?.destroy());
    try {
      await withGateway({ ARTICLES_URL: dead.url }, async (gateway) => {
        const res = await request(gateway.app).get('/articles/0123456789abcdef01234567');

        expect(res.status).toBe(502);
        expect(dead.received).toHaveLength(3);
      });
    } finally {
      await dead.close();
    }
  });

  test('when the service does not answer within UPSTREAM_TIMEOUT_MS, then 504', async () => {
    const hung = await startUpstream(hang);
    try {
      await withGateway({ ARTICLES_URL: hung.url, UPSTREAM_TIMEOUT_MS: '300' }, async (gateway) => {
        const started = Date.now();
        const res = await request(gateway.app).post('/articles').set('Authorization', `Bearer ${aUserToken()}`).send({ title: 'x' });

        expect(res.status).toBe(504);
        expect(Date.now() - started).toBeGreaterThanOrEqual(250);
        expect(res.body).toMatchObject({ status: 504, code: 'gateway_timeout' });
        expect(res.text).not.toContain(hung.url);
        expect(hung.received).toHaveLength(1);
      });
    } finally {
      await hung.close();
    }
  });
});

describe('health and readiness', () => {
  test('when every upstream answers /health, then /ready is 200', () =>
    withGateway({}, async (gateway) => {
      const res = await request(gateway.app).get('/ready');

      expect(res.status).toBe(200);
      expect(res.body).toEqual({ status: 'ready', checks: checks() });
    }));

  test('when an upstream is down, then /ready is 503 naming it and /health stays 200', async () => {
    const down = await refusingUrl();
    await withGateway({ ARTICLES_URL: down }, async (gateway) => {
      const ready = await request(gateway.app).get('/ready');
      const health = await request(gateway.app).get('/health');

      expect(ready.status).toBe(503);
      expect(ready.body).toEqual({ status: 'unready', checks: checks({ articles: 'down' }) });
      expect(health.status).toBe(200);
    });
  });
});

describe('CORS', () => {
  test('when CORS_ORIGINS is empty, then no CORS header is sent', () =>
    withGateway({}, async (gateway) => {
      const res = await request(gateway.app).get('/articles').set('Origin', 'https://app.example');

      expect(res.headers['access-control-allow-origin']).toBeUndefined();
    }));

  test('when the origin is listed, then the preflight allows it, without credentials mode', () =>
    withGateway({ CORS_ORIGINS: 'https://app.example, https://admin.example' }, async (gateway) => {
      const preflight = await request(gateway.app)
        .options('/articles')
        .set('Origin', 'https://app.example')
        .set('Access-Control-Request-Method', 'POST')
        .set('Access-Control-Request-Headers', 'authorization, content-type');
      const other = await request(gateway.app).get('/articles').set('Origin', 'https://evil.example');

      expect(preflight.status).toBe(204);
      expect(preflight.headers['access-control-allow-origin']).toBe('https://app.example');
      expect(preflight.headers['access-control-allow-headers']).toMatch(/Authorization/);
      expect(preflight.headers['access-control-allow-credentials']).toBeUndefined();
      expect(other.headers['access-control-allow-origin']).toBeUndefined();
    }));
});

describe('logs', () => {
  test('when requests carry tokens and fail upstream, then no token appears in any log line', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const logger = pino({ level: 'trace', redact: { paths: REDACTED_PATHS, censor: '[redacted]' } }, sink);
    const down = await refusingUrl();
    const token = aUserToken();
    const gateway = startGateway({ IDENTITY_URL: identity.url, ARTICLES_URL: down }, logger);
    try {
      await request(gateway.app).get(`/articles?access_token=${token}&q=x`);
      await request(gateway.app).post('/articles').set('Authorization', `Bearer ${token}`).type('form').send({ title: 'x' });
      await request(gateway.app).post('/users').type('form').send({ access_token: TEST_MASTER_KEY, password: 'secret-123' });
      await request(gateway.app).get('/articles').query({ access_token: 'not-a-token' });
    } finally {
      gateway.close();
    }

    const output = lines.join('');
    expect(output).toContain('upstream request failed');
    expect(output).toContain('[redacted]');
    for (const secret of [token, TEST_MASTER_KEY, 'not-a-token', 'secret-123']) expect(output).not.toContain(secret);
  });
});
