/**
 * Answers that tell a newcomer what to do next: the root points at the docs, a preflight without
 * CORS names the setting, and a body sent with the wrong (or no) Content-Type says which to send.
 */
import request from 'supertest';
import { startGateway, type TestGateway } from './support/gateway';
import { aUserToken } from './support/tokens';
import { startUpstream, type TestUpstream } from './support/upstream';

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

describe('GET /', () => {
  test('when a client opens the root, then JSON points to /docs and /openapi.json', async () => {
    const res = await request(gateway.app).get('/');

    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toMatchObject({ docs: '/docs', openapi: '/openapi.json' });
  });
});

describe('CORS preflight', () => {
  const preflight = (app: TestGateway['app']) =>
    request(app)
      .options('/articles')
      .set('Origin', 'https://app.example.test')
      .set('Access-Control-Request-Method', 'POST')
      .set('Access-Control-Request-Headers', 'authorization,content-type');

  test('when CORS_ORIGINS is empty, then a preflight gets 405 naming CORS_ORIGINS, with Allow', async () => {
    const res = await preflight(gateway.app);

    expect(res.status).toBe(405);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.headers.allow).toBe('POST, GET, HEAD');
    expect(res.body).toMatchObject({ code: 'cors_not_enabled', detail: expect.stringContaining('CORS_ORIGINS') });
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });

  test('when OPTIONS comes without Origin (not a preflight), then it is the plain 405', async () => {
    const res = await request(gateway.app).options('/articles');

    expect(res.status).toBe(405);
    expect(res.body).toMatchObject({ code: 'method_not_allowed' });
  });

  test('when CORS_ORIGINS lists the origin, then the preflight is answered with the allowed methods and headers', async () => {
    const open = startGateway({ IDENTITY_URL: identity.url, ARTICLES_URL: articles.url, CORS_ORIGINS: 'https://app.example.test' });
    try {
      const before = articles.received.length;
      const res = await preflight(open.app);

      expect(res.status).toBe(204);
      expect(res.headers['access-control-allow-origin']).toBe('https://app.example.test');
      expect(res.headers['access-control-allow-methods']).toContain('POST');
      expect(res.headers['access-control-allow-headers']).toMatch(/authorization/i);
      expect(articles.received.length).toBe(before);
    } finally {
      open.close();
    }
  });
});

describe('bodies with the wrong or no Content-Type', () => {
  test('when a JSON body arrives as a form (curl -d without -H), then 400 says to send Content-Type: application/json', async () => {
    const before = articles.received.length;
    const res = await request(gateway.app)
      .post('/articles')
      .set('Authorization', `Bearer ${aUserToken()}`)
      .set('Content-Type', 'application/x-www-form-urlencoded')
      .send('{"title":"Hello","content":"x"}');

    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'content_type_mismatch', detail: expect.stringContaining('Content-Type: application/json') });
    expect(articles.received.length).toBe(before);
  });

  test('when a body has no Content-Type at all, then 415 says to send one', async () => {
    const res = await request(gateway.app)
      .post('/articles')
      .set('Authorization', `Bearer ${aUserToken()}`)
      .set('Content-Type', '')
      .send(Buffer.from('{"title":"Hello"}'));

    expect(res.status).toBe(415);
    expect(res.body).toMatchObject({ code: 'unsupported_media_type', detail: expect.stringContaining('without a Content-Type') });
  });

  test('when a real form starts with a brace but is not JSON, then it is forwarded as a form', async () => {
    const res = await request(gateway.app)
      .post('/articles')
      .set('Authorization', `Bearer ${aUserToken()}`)
      .type('form')
      .send('{title=Hello');

    expect(res.status).toBe(200);
    expect(articles.last().body.toString()).toBe('{title=Hello');
  });
});
