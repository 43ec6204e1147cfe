import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { signPrincipal } from '@restgate/shared';
import { capturingLogger, TEST_PRINCIPAL_SECRET } from '@restgate/shared/testing';
import { startGateway, type TestGateway } from './support/gateway';
import { aUserToken, anObjectId, TEST_MASTER_KEY } from './support/tokens';
import { principalOf, startUpstream, type TestUpstream } from './support/upstream';

let identity: TestUpstream;
let articles: TestUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  identity = await startUpstream();
  articles = await startUpstream();
  gateway = startGateway({ IDENTITY_URL: identity.url, ARTICLES_URL: articles.url });
});

afterAll(async () => {
  gateway.close();
  await Promise.all([identity.close(), articles.close()]);
});

/** The gateway on a real port, for tests that need a client supertest cannot be. */
async function listening(app: http.RequestListener): Promise<{ port: number; close: () => Promise<void> }> {
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('form bodies', () => {
  test('when a form body holds access_token, then it is removed and every other pair arrives byte for byte', async () => {
    const before = 'email%5B%24ne%5D=x&email[$gt]=';
    const after = 'name=Ann+Lee&note=caf%C3%A9%20%26%20bar&flag&&empty=';
    const body = `${before}&access_token=${TEST_MASTER_KEY}&${after}`;
    const others = `${before}&${after}`;

    const res = await request(gateway.app).post('/users').set('Content-Type', 'application/x-www-form-urlencoded').send(body);

    expect(res.status).toBe(200);
    const received = identity.last();
    expect(received.body.toString('latin1')).toBe(others);
    expect(received.headers['content-length']).toBe(String(Buffer.byteLength(others)));
    expect(received.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(principalOf(received, TEST_PRINCIPAL_SECRET)).toEqual({ kind: 'master' });
  });

  test('when the key is percent-encoded (access%5Ftoken), then it is still the credential and still removed', async () => {
    const res = await request(gateway.app).post('/users').type('form').send(`access%5Ftoken=${TEST_MASTER_KEY}&email=a%40example.test`);

    expect(res.status).toBe(200);
    expect(identity.last().body.toString()).toBe('email=a%40example.test');
  });

  test('when a form body holds no access_token, then it is forwarded unchanged', async () => {
    const body = 'title=Hello&content=%E2%9C%93+done';

    const res = await request(gateway.app).post('/articles').set('Authorization', `Bearer ${aUserToken()}`).type('form').send(body);

    expect(res.status).toBe(200);
    expect(articles.last().body.toString()).toBe(body);
    expect(articles.last().headers['content-length']).toBe(String(body.length));
  });
});

describe('JSON bodies', () => {
  test('when a JSON body holds access_token, then it is removed and the rest is kept', async () => {
    const token = aUserToken();
    const fields = {
      title: 'Hello',
      content: 'x'.repeat(50),
      tags: ['a', 'b'],
      'email[$ne]': 1,
      nested: { access_token: 'kept: only top level counts' },
    };

    const res = await request(gateway.app)
      .post('/articles')
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ ...fields, access_token: token }));

    expect(res.status).toBe(200);
    const received = articles.last();
    expect(JSON.parse(received.body.toString())).toEqual(fields);
    expect(received.body.toString()).not.toContain(token);
    expect(received.headers['content-length']).toBe(String(received.body.length));
  });

  test('when a JSON body holds no access_token, then its bytes are forwarded unchanged', async () => {
    const body = '{ "title" : "Hello",\n  "content": "\\u00e9" }';

    const res = await request(gateway.app)
      .post('/articles')
      .set('Authorization', `Bearer ${aUserToken()}`)
      .set('Content-Type', 'application/json')
      .send(body);

    expect(res.status).toBe(200);
    expect(articles.last().body.toString()).toBe(body);
  });

  test('when the body is sent chunked, then the service gets it with a Content-Length', async () => {
    const server = await listening(gateway.app);
    try {
      const { port } = server;
      const status = await new Promise<number>((resolve, reject) => {
        const req = http.request(
          { port, host: '127.0.0.1', method: 'POST', path: '/users', headers: { 'content-type': 'application/json' } },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on('error', reject);
        req.write(`{"access_token":"${TEST_MASTER_KEY}",`);
        req.end('"email":"c@example.test"}');
      });

      expect(status).toBe(200);
      const received = identity.last();
      expect(received.headers['transfer-encoding']).toBeUndefined();
      expect(received.headers['content-length']).toBe(String('{"email":"c@example.test"}'.length));
      expect(JSON.parse(received.body.toString())).toEqual({ email: 'c@example.test' });
    } finally {
      await server.close();
    }
  });
});

describe('query strings', () => {
  test('when the query holds access_token, then it is removed and the other parameters keep their order and encoding', async () => {
    const res = await request(gateway.app).get(`/users?q=ann%20lee&access_token=${aUserToken({ role: 'admin' })}&sort=-createdAt&page=2`);

    expect(res.status).toBe(200);
    expect(identity.last().url).toBe('/users?q=ann%20lee&sort=-createdAt&page=2');
  });
});

describe('identity headers', () => {
  test('when the client sends its own principal and user headers, then the service gets only the one the gateway signed', async () => {
    const forged = signPrincipal({ kind: 'user', id: anObjectId(), role: 'admin' }, TEST_PRINCIPAL_SECRET, 'GET', '/articles');

    const res = await request(gateway.app)
      .get('/articles')
      .set('X-Restgate-Principal', forged)
      .set('X-User-Id', anObjectId())
      .set('X-User-Role', 'admin')
      .set('X-Principal', 'admin')
      .set('X-Forwarded-For', '10.0.0.1')
      .set('X-Custom', 'kept');

    expect(res.status).toBe(200);
    const received = articles.last();
    expect(received.headers['x-restgate-principal']).not.toBe(forged);
    expect(principalOf(received, TEST_PRINCIPAL_SECRET)).toEqual({ kind: 'anonymous' });
    expect(received.headers['x-user-id']).toBeUndefined();
    expect(received.headers['x-user-role']).toBeUndefined();
    expect(received.headers['x-principal']).toBeUndefined();
    expect(received.headers['x-forwarded-for']).toMatch(/127\.0\.0\.1/);
    expect(received.headers['x-custom']).toBe('kept');
  });

  test('when a principal is forwarded, then it is bound to the method and path and verifies with the principal secret', async () => {
    const id = anObjectId();

    await request(gateway.app)
      .patch(`/articles/${anObjectId()}`)
      .set('Authorization', `Bearer ${aUserToken({ sub: id })}`)
      .send({ title: 'x' });

    const received = articles.last();
    expect(principalOf(received, TEST_PRINCIPAL_SECRET)).toEqual({ kind: 'user', id, role: 'user', sid: expect.any(String) });
    expect(principalOf({ ...received, method: 'DELETE' }, TEST_PRINCIPAL_SECRET)).toEqual({ kind: 'anonymous' });
    expect(principalOf(received, 'another-secret-0123456789abcdef-0123')).toEqual({ kind: 'anonymous' });
  });
});

describe('request ids', () => {
  test('when the client sends a well-formed X-Request-Id, then it is forwarded and echoed', async () => {
    const res = await request(gateway.app).get('/articles').set('X-Request-Id', 'client-req-42');

    expect(res.headers['x-request-id']).toBe('client-req-42');
    expect(articles.last().headers['x-request-id']).toBe('client-req-42');
  });

  test('when the X-Request-Id is malformed, then a new one replaces it upstream and in the response', async () => {
    const res = await request(gateway.app).get('/articles').set('X-Request-Id', 'bad id <script>');

    const id = res.headers['x-request-id'];
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(articles.last().headers['x-request-id']).toBe(id);
  });

  test('when the gateway answers an error itself, then the problem carries the request id', async () => {
    const res = await request(gateway.app).get('/nowhere').set('X-Request-Id', 'client-req-43');

    expect(res.body).toMatchObject({ requestId: 'client-req-43' });
    expect(res.headers['x-request-id']).toBe('client-req-43');
  });
});

describe('keep-alive pools', () => {
  test('when more requests than UPSTREAM_MAX_SOCKETS carry bodies at once, then each body reaches the service intact', async () => {
    const narrow = startGateway({ IDENTITY_URL: identity.url, ARTICLES_URL: articles.url, UPSTREAM_MAX_SOCKETS: '1' });
    try {
      const titles = Array.from({ length: 8 }, (_, i) => `queued-${i}-${anObjectId()}`);

      const statuses = await Promise.all(
        titles.map((title) =>
          request(narrow.app)
            .post('/articles')
            .type('form')
            .send({ access_token: aUserToken(), title })
            .then((res) => res.status),
        ),
      );

      expect(statuses).toEqual(titles.map(() => 200));
      const bodies = articles.received.map((r) => r.body.toString());
      for (const title of titles) expect(bodies).toContain(`title=${title}`);
    } finally {
      narrow.close();
    }
  });
});

describe('the wire', () => {
  test('when the client leaves before the service answers, then the request to the service is ended too', async () => {
    let serviceSawClose: () => void = () => undefined;
    const closed = new Promise<void>((resolve) => (serviceSawClose = resolve));
    const slow = await startUpstream((_received, res) => res.once('close', () => serviceSawClose()));
    const { logger, lines } = capturingLogger();
    const slowGateway = startGateway({ IDENTITY_URL: identity.url, ARTICLES_URL: slow.url }, logger);
    const server = await listening(slowGateway.app);
    try {
      const req = http.request({ port: server.port, host: '127.0.0.1', path: `/articles/${anObjectId()}` });
      req.on('error', () => undefined);
      req.end();
      for (let i = 0; i < 100 && slow.received.length === 0; i += 1) await new Promise((r) => setTimeout(r, 20));
      expect(slow.received).toHaveLength(1);

      req.destroy();

      // Without the abort, the service's answer would stay open until the gateway's timeout (30 s).
      await expect(Promise.race([closed.then(() => 'closed'), new Promise((r) => setTimeout(() => r('still open'), 2_000))])).resolves.toBe(
        'closed',
      );
      // Not an upstream failure: the access line says the client left, and nothing else is logged.
      for (let i = 0; i < 50 && !lines().some((l) => l.aborted); i += 1) await new Promise((r) => setTimeout(r, 20));
      expect(lines().filter((l) => l.aborted)).toHaveLength(1);
      expect(lines().filter((l) => Number(l.level) >= 40)).toEqual([]);
    } finally {
      await server.close();
      slowGateway.close();
      await slow.close();
    }
  });

  test('when the client leaves while the answer streams, then the answer from the service is ended too and the gateway serves on', async () => {
    let serviceSawClose: () => void = () => undefined;
    const closed = new Promise<void>((resolve) => (serviceSawClose = resolve));
    const streaming = await startUpstream((_received, res) => {
      res.once('close', () => serviceSawClose());
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"items":[');
    });
    const streamingGateway = startGateway({ IDENTITY_URL: identity.url, ARTICLES_URL: streaming.url });
    const server = await listening(streamingGateway.app);
    try {
      const started = new Promise<http.ClientRequest>((resolve, reject) => {
        const req = http.request({ port: server.port, host: '127.0.0.1', path: `/articles/${anObjectId()}` }, (res) => {
          res.once('data', () => resolve(req));
          res.on('error', () => undefined);
        });
        req.on('error', reject);
        req.end();
      });
      const req = await started;

      req.on('error', () => undefined);
      req.destroy();

      await expect(Promise.race([closed.then(() => 'closed'), new Promise((r) => setTimeout(() => r('still open'), 2_000))])).resolves.toBe(
        'closed',
      );
      const next = await request(streamingGateway.app).post('/users').type('form').send({ access_token: TEST_MASTER_KEY });
      expect(next.status).toBe(200);
    } finally {
      await server.close();
      streamingGateway.close();
      await streaming.close();
    }
  });
});
