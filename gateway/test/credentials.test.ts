import request from 'supertest';
import { TEST_PRINCIPAL_SECRET } from '@restgate/shared/testing';
import { startGateway, type TestGateway } from './support/gateway';
import { aUserToken, anAdminToken, anObjectId, tamperedToken, TEST_MASTER_KEY, unsignedToken } from './support/tokens';
import { principalOf, startUpstream, type TestUpstream } from './support/upstream';

const BEARER_CHALLENGE = 'Bearer realm="restgate"';
const INVALID_TOKEN_CHALLENGE = 'Bearer realm="restgate", error="invalid_token"';

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

/** Runs `act` and returns how many requests reached either upstream meanwhile. */
async function forwardedDuring(act: () => Promise<unknown>): Promise<number> {
  const before = identity.received.length + articles.received.length;
  await act();
  return identity.received.length + articles.received.length - before;
}

describe('master key', () => {
  test('when POST /users carries the master key in the form body, then it is forwarded as the master principal', async () => {
    const res = await request(gateway.app)
      .post('/users')
      .type('form')
      .send({ access_token: TEST_MASTER_KEY, email: 'a@example.test', password: 'secret-123' });

    expect(res.status).toBe(200);
    expect(principalOf(identity.last(), TEST_PRINCIPAL_SECRET)).toEqual({ kind: 'master' });
  });

  test('when the master key is wrong, then 401 invalid_token and nothing is forwarded', async () => {
    let res!: request.Response;
    const forwarded = await forwardedDuring(async () => {
      res = await request(gateway.app)
        .post('/users')
        .query({ access_token: `${TEST_MASTER_KEY}x` })
        .type('form')
        .send({ email: 'a@example.test' });
    });

    expect(res.status).toBe(401);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.headers['www-authenticate']).toBe(INVALID_TOKEN_CHALLENGE);
    expect(res.body).toMatchObject({ status: 401, code: 'invalid_token' });
    expect(JSON.stringify(res.body)).not.toContain(TEST_MASTER_KEY);
    expect(forwarded).toBe(0);
  });

  test('when POST /users has no credential, then 401 with a Bearer challenge without error', async () => {
    const res = await request(gateway.app).post('/users').type('form').send({ email: 'a@example.test' });

    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe(BEARER_CHALLENGE);
    expect(res.body).toMatchObject({ code: 'credential_missing' });
  });

  test('when a user token is sent to a master route, then 403', async () => {
    const forwarded = await forwardedDuring(async () => {
      const res = await request(gateway.app)
        .post('/users')
        .set('Authorization', `Bearer ${aUserToken()}`)
        .send({ email: 'a@example.test' });
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ code: 'forbidden' });
    });
    expect(forwarded).toBe(0);
  });

  test('when an admin token is sent to a master route, then 403: levels do not nest', async () => {
    const res = await request(gateway.app)
      .post('/password-resets')
      .set('Authorization', `Bearer ${anAdminToken()}`)
      .send({ email: 'a@example.test' });

    expect(res.status).toBe(403);
  });

  test('when the master key is sent to a user route, then 403', async () => {
    const res = await request(gateway.app)
      .post('/articles')
      .set('Authorization', `Bearer ${TEST_MASTER_KEY}`)
      .send({ title: 't', content: 'c' });

    expect(res.status).toBe(403);
    expect(articles.received.some((r) => r.method === 'POST' && r.url === '/articles')).toBe(false);
  });
});

describe('user tokens', () => {
  test('when GET /users/me carries a Bearer user token, then the user principal is forwarded and the token is not', async () => {
    const id = anObjectId();
    const token = aUserToken({ sub: id });

    const res = await request(gateway.app).get('/users/me').set('Authorization', `Bearer ${token}`);

    expect(res.status).toBe(200);
    const received = identity.last();
    expect(received.url).toBe('/users/me');
    expect(principalOf(received, TEST_PRINCIPAL_SECRET)).toEqual({ kind: 'user', id, role: 'user', sid: expect.any(String) });
    expect(received.headers.authorization).toBeUndefined();
    expect(JSON.stringify(received.headers)).not.toContain(token);
  });

  test('when GET /users (admin) is called with a user token, then 403; with an admin token, then forwarded', async () => {
    const asUser = await request(gateway.app).get('/users').set('Authorization', `Bearer ${aUserToken()}`);
    const id = anObjectId();
    const asAdmin = await request(gateway.app)
      .get('/users')
      .query({ access_token: anAdminToken({ sub: id }), q: 'ann' });

    expect(asUser.status).toBe(403);
    expect(asUser.body).toMatchObject({ code: 'forbidden', detail: 'This route needs an admin.' });
    expect(asAdmin.status).toBe(200);
    expect(identity.last().url).toBe('/users?q=ann');
    expect(principalOf(identity.last(), TEST_PRINCIPAL_SECRET)).toEqual({ kind: 'user', id, role: 'admin', sid: expect.any(String) });
  });

  test('when the user token is expired, then 401 invalid_token saying so', async () => {
    const res = await request(gateway.app)
      .get('/users/me')
      .set('Authorization', `Bearer ${aUserToken({ expiresIn: -60 })}`);

    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe(INVALID_TOKEN_CHALLENGE);
    expect(res.body).toMatchObject({ code: 'invalid_token', detail: 'The access token has expired.' });
  });

  test.each([
    ['tampered (role changed, signature kept)', () => tamperedToken(aUserToken())],
    ['alg none', () => unsignedToken(aUserToken())],
    ['signed with another secret', () => aUserToken({ secret: 'another-secret-0123456789abcdef-0123' })],
    ['from another issuer', () => aUserToken({ issuer: 'someone-else' })],
    ['for another audience', () => aUserToken({ audience: 'another-api' })],
    ['without exp', () => aUserToken({ expiresIn: null })],
    ['with a sub that is not a user id', () => aUserToken({ sub: 'not-an-id' })],
    ['with an unknown role', () => aUserToken({ role: 'root' })],
    ['not a JWT at all', () => 'garbage'],
  ])('when the user token is %s, then 401 invalid_token and nothing is forwarded', async (_label, makeToken) => {
    let res!: request.Response;
    const forwarded = await forwardedDuring(async () => {
      res = await request(gateway.app).get('/users/me').set('Authorization', `Bearer ${makeToken()}`);
    });

    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe(INVALID_TOKEN_CHALLENGE);
    expect(res.body).toMatchObject({ code: 'invalid_token', detail: 'The access token is not valid.' });
    expect(forwarded).toBe(0);
  });

  test('when a bad token is presented on a public route, then it is refused rather than ignored', async () => {
    const res = await request(gateway.app).get('/articles').query({ access_token: 'garbage' });

    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe(INVALID_TOKEN_CHALLENGE);
  });

  test('when access_token is empty on a public route, then it counts as absent and is stripped', async () => {
    const res = await request(gateway.app).get('/articles?access_token=&q=x');

    expect(res.status).toBe(200);
    expect(articles.last().url).toBe('/articles?q=x');
    expect(principalOf(articles.last(), TEST_PRINCIPAL_SECRET)).toEqual({ kind: 'anonymous' });
  });
});

describe('a token given in more than one place', () => {
  test.each([
    [
      'the query and a form body',
      (t: string) => request(gateway.app).post('/articles').query({ access_token: t }).type('form').send({ access_token: t, title: 'x' }),
    ],
    [
      'a JSON body and a Bearer header',
      (t: string) => request(gateway.app).post('/articles').set('Authorization', `Bearer ${t}`).send({ access_token: t, title: 'x' }),
    ],
    [
      'the query and a Bearer header',
      (t: string) => request(gateway.app).get('/articles').query({ access_token: t }).set('Authorization', `Bearer ${t}`),
    ],
    ['the query, twice', (t: string) => request(gateway.app).get(`/articles?access_token=${t}&access_token=${t}`)],
  ])('when it is in %s, then 400 credential_ambiguous', async (_label, send) => {
    let res!: request.Response;
    const forwarded = await forwardedDuring(async () => {
      res = await send(aUserToken());
    });

    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ status: 400, code: 'credential_ambiguous' });
    expect(forwarded).toBe(0);
  });
});

describe('a JSON body with access_token twice', () => {
  const twice = (t: string) => `{"title":"x","access_token":"${t}","access\\u005ftoken":"${t}"}`;

  test.each([
    ['POST /articles (a user route)', '/articles'],
    ['POST /auth/github (a provider route, passed through)', '/auth/github'],
  ])('when %s gets it, then 400 credential_ambiguous and nothing is forwarded', async (_label, path) => {
    let res!: request.Response;
    const forwarded = await forwardedDuring(async () => {
      res = await request(gateway.app).post(path).type('json').send(twice(aUserToken()));
    });

    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ status: 400, code: 'credential_ambiguous' });
    expect(forwarded).toBe(0);
  });

  test('when access_token is once at the top and once nested, then only the top one counts', async () => {
    const token = aUserToken();
    const res = await request(gateway.app)
      .post('/articles')
      .type('json')
      .send(JSON.stringify({ access_token: token, meta: { access_token: 'inner' }, note: 'a "quoted" access_token: x' }));

    expect(res.status).toBe(200);
    expect(JSON.parse(articles.last().body.toString())).toEqual({ meta: { access_token: 'inner' }, note: 'a "quoted" access_token: x' });
  });
});

describe('HTTP Basic and provider tokens', () => {
  const basic = `Basic ${Buffer.from('ann@example.test:secret-123').toString('base64')}`;

  test('when POST /auth carries the master key and Basic, then Basic reaches identity with the master principal', async () => {
    const res = await request(gateway.app).post('/auth').set('Authorization', basic).type('form').send({ access_token: TEST_MASTER_KEY });

    expect(res.status).toBe(200);
    const received = identity.last();
    expect(received.url).toBe('/auth');
    expect(received.headers.authorization).toBe(basic);
    expect(received.body.toString()).toBe('');
    expect(principalOf(received, TEST_PRINCIPAL_SECRET)).toEqual({ kind: 'master' });
  });

  test('when POST /auth carries Basic but no master key, then 401 master_key_missing names the master key, and nothing is forwarded', async () => {
    let res!: request.Response;
    const forwarded = await forwardedDuring(async () => {
      res = await request(gateway.app).post('/auth').set('Authorization', basic);
    });

    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe(BEARER_CHALLENGE);
    expect(res.body).toMatchObject({ code: 'master_key_missing', detail: expect.stringMatching(/^The master key is missing: send it as access_token/) });
    expect(forwarded).toBe(0);
  });

  test('when POST /auth carries neither, then 401 names both the master key and HTTP Basic', async () => {
    const res = await request(gateway.app).post('/auth');

    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ code: 'credential_missing', detail: expect.stringContaining('the master key as access_token') });
    expect(res.body.detail).toContain('HTTP Basic');
  });

  test('when POST /auth carries the master key but no Basic, then 401 basic_required with the Basic challenge', async () => {
    const res = await request(gateway.app).post('/auth').type('form').send({ access_token: TEST_MASTER_KEY });

    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Basic realm="restgate"');
    expect(res.body).toMatchObject({ code: 'basic_required' });
  });

  test('when PUT /users/:id/password carries a Bearer user token instead of Basic, then 401 says the route needs HTTP Basic, and nothing is forwarded', async () => {
    const id = anObjectId();
    let res!: request.Response;
    const forwarded = await forwardedDuring(async () => {
      res = await request(gateway.app)
        .put(`/users/${id}/password`)
        .set('Authorization', `Bearer ${aUserToken({ sub: id })}`)
        .type('form')
        .send({ password: 'new-secret-123' });
    });

    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Basic realm="restgate"');
    expect(res.body).toMatchObject({
      code: 'basic_required',
      detail:
        "This route needs HTTP Basic (the user's e-mail and password in Authorization: Basic), not a Bearer token; a token goes as access_token.",
    });
    expect(forwarded).toBe(0);
  });

  test('when PUT /users/me/password carries Basic and the user token as access_token, then Basic is forwarded untouched for identity to check, with the user as principal', async () => {
    const id = anObjectId();
    const res = await request(gateway.app)
      .put('/users/me/password')
      .set('Authorization', basic)
      .type('form')
      .send({ password: 'new-secret-123', access_token: aUserToken({ sub: id }) });

    expect(res.status).toBe(200);
    const received = identity.last();
    expect(received.headers.authorization).toBe(basic);
    expect(received.body.toString()).toBe('password=new-secret-123');
    expect(principalOf(received, TEST_PRINCIPAL_SECRET)).toMatchObject({ kind: 'user', id });
  });

  test.each([
    ['Basic alone', { authorization: true, token: undefined }, 'user_token_missing'],
    ['nothing', { authorization: false, token: undefined }, 'credential_missing'],
  ])('when PUT /users/me/password carries %s (no user token), then 401 naming what is missing, and nothing is forwarded', async (_label, sent, code) => {
    let res!: request.Response;
    const forwarded = await forwardedDuring(async () => {
      let req = request(gateway.app).put('/users/me/password');
      if (sent.authorization) req = req.set('Authorization', basic);
      res = await req.type('form').send({ password: 'new-secret-123' });
    });

    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ code });
    expect(forwarded).toBe(0);
  });

  test('when PUT /users/me/password carries Basic and the master key, then 403: the master key is not the user', async () => {
    const res = await request(gateway.app)
      .put('/users/me/password')
      .set('Authorization', basic)
      .type('form')
      .send({ password: 'new-secret-123', access_token: TEST_MASTER_KEY });

    expect(res.status).toBe(403);
  });

  test('when a route that is not basic gets a Basic header, then the header is not forwarded', async () => {
    const res = await request(gateway.app).get('/articles').set('Authorization', basic);

    expect(res.status).toBe(200);
    expect(articles.last().headers.authorization).toBeUndefined();
  });

  test('when POST /auth/github carries a provider token, then it is passed through uninterpreted', async () => {
    const res = await request(gateway.app)
      .post('/auth/github?access_token=gho_query')
      .set('Authorization', 'Bearer gho_header')
      .type('form')
      .send({ access_token: 'gho_body' });

    expect(res.status).toBe(200);
    const received = identity.last();
    expect(received.url).toBe('/auth/github?access_token=gho_query');
    expect(received.headers.authorization).toBe('Bearer gho_header');
    expect(received.body.toString()).toBe('access_token=gho_body');
    expect(principalOf(received, TEST_PRINCIPAL_SECRET)).toEqual({ kind: 'anonymous' });
  });
});

describe('ROUTE_POLICY', () => {
  test('when the operator opens POST /users to public, then sign-up needs no master key', async () => {
    const open = startGateway({ IDENTITY_URL: identity.url, ARTICLES_URL: articles.url, ROUTE_POLICY: 'POST /users=public' });
    try {
      const res = await request(open.app).post('/users').type('form').send({ email: 'b@example.test', password: 'secret-123' });

      expect(res.status).toBe(200);
      expect(identity.last().url).toBe('/users');
      expect(principalOf(identity.last(), TEST_PRINCIPAL_SECRET)).toEqual({ kind: 'anonymous' });
      // The default gateway still wants the master key.
      expect((await request(gateway.app).post('/users').type('form').send({ email: 'b@example.test' })).status).toBe(401);
    } finally {
      open.close();
    }
  });

  test('when ROUTE_POLICY cannot be read, then the gateway does not start', () => {
    expect(() => startGateway({ ROUTE_POLICY: 'POST /users=everyone' })).toThrow(/ROUTE_POLICY/);
  });
});
