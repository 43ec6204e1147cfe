import request from 'supertest';
import { startGateway, type TestGateway } from './support/gateway';
import { aUserToken, anAdminToken, TEST_MASTER_KEY } from './support/tokens';
import { startUpstream, type TestUpstream } from './support/upstream';

let identity: TestUpstream;
let articles: TestUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  identity = await startUpstream();
  articles = await startUpstream();
  gateway = startGateway({ IDENTITY_URL: identity.url, ARTICLES_URL: articles.url, BODY_LIMIT: '1kb' });
});

afterAll(async () => {
  gateway.close();
  await Promise.all([identity.close(), articles.close()]);
});

/** Runs `send` and asserts that no upstream saw a request meanwhile. */
async function answeredByGateway(send: () => request.Test): Promise<request.Response> {
  const before = identity.received.length + articles.received.length;
  const res = await send();
  expect(identity.received.length + articles.received.length).toBe(before);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  return res;
}

describe('bodies the gateway refuses', () => {
  test('when the body is over BODY_LIMIT, then 413', async () => {
    const res = await answeredByGateway(() =>
      request(gateway.app)
        .post('/articles')
        .type('form')
        .send({ access_token: aUserToken(), content: 'x'.repeat(2048) }),
    );

    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ code: 'payload_too_large' });
  });

  test('when the body is text/plain, then 415', async () => {
    const res = await answeredByGateway(() =>
      request(gateway.app)
        .post('/articles')
        .set('Authorization', `Bearer ${aUserToken()}`)
        .set('Content-Type', 'text/plain')
        .send('title=x'),
    );

    expect(res.status).toBe(415);
    expect(res.body).toMatchObject({ code: 'unsupported_media_type' });
  });

  test('when the body is gzip-encoded, then 415', async () => {
    const res = await answeredByGateway(() =>
      request(gateway.app).post('/articles').set('Content-Type', 'application/json').set('Content-Encoding', 'gzip').send('{}'),
    );

    expect(res.status).toBe(415);
  });

  test('when the JSON is malformed, then 400 malformed_body', async () => {
    const res = await answeredByGateway(() =>
      request(gateway.app)
        .post('/users')
        .query({ access_token: TEST_MASTER_KEY })
        .set('Content-Type', 'application/json')
        .send('{"email": '),
    );

    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'malformed_body' });
  });

  test('when a JSON body declares a charset other than UTF-8, then 415', async () => {
    const res = await answeredByGateway(() =>
      request(gateway.app)
        .post('/users')
        .query({ access_token: TEST_MASTER_KEY })
        .set('Content-Type', 'application/json; charset=utf-16')
        .send('{}'),
    );

    expect(res.status).toBe(415);
  });
});

describe('routes the gateway does not know', () => {
  test('when the path is unknown, then 404 route_not_found', async () => {
    const res = await answeredByGateway(() => request(gateway.app).get('/admin/secrets'));

    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ status: 404, code: 'route_not_found' });
  });

  test('when the path only resembles a route (extra segment, double slash), then 404', async () => {
    expect((await answeredByGateway(() => request(gateway.app).get('/articles/1/2'))).status).toBe(404);
    expect((await answeredByGateway(() => request(gateway.app).get('//users'))).status).toBe(404);
  });

  test('when the path is known and the method is not, then 405 with Allow', async () => {
    const res = await answeredByGateway(() => request(gateway.app).post('/articles/0123456789abcdef01234567'));

    expect(res.status).toBe(405);
    expect(res.body).toMatchObject({ code: 'method_not_allowed' });
    expect(res.headers.allow).toBe('GET, PUT, PATCH, DELETE, HEAD');
  });

  test("when /users/me gets a method of its own, then it is routed (PUT, DELETE); another is a 405 naming /users/me's methods", async () => {
    const put = await request(gateway.app).put('/users/me').set('Authorization', `Bearer ${aUserToken()}`).send({ name: 'Ann' });
    const del = await request(gateway.app).delete('/users/me').set('Authorization', `Bearer ${anAdminToken()}`);
    const post = await answeredByGateway(() => request(gateway.app).post('/users/me'));

    expect(put.status).toBe(200);
    expect(del.status).toBe(200);
    expect(identity.last()).toMatchObject({ method: 'DELETE', url: '/users/me' });
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe('GET, PUT, PATCH, DELETE, HEAD');
  });
});
