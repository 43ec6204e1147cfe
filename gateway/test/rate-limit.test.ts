import request from 'supertest';
import { verifyClientAddress } from '@restgate/shared/http';
import { TEST_PRINCIPAL_SECRET } from '@restgate/shared/testing';
import { aKeyPrefix, seriesValue, startLimitedGateway, type LimitedGateway } from './support/limited-gateway';
import { aUserToken, TEST_MASTER_KEY } from './support/tokens';
import { startUpstream, type TestUpstream } from './support/upstream';

let identity: TestUpstream;
let articles: TestUpstream;
const gateways: LimitedGateway[] = [];

beforeAll(async () => {
  identity = await startUpstream();
  articles = await startUpstream();
});

afterAll(async () => {
  await Promise.all(gateways.map((g) => g.close()));
  await Promise.all([identity.close(), articles.close()]);
});

async function aGateway(env: Record<string, string>): Promise<LimitedGateway> {
  const gateway = await startLimitedGateway({ IDENTITY_URL: identity.url, ARTICLES_URL: articles.url, ...env });
  gateways.push(gateway);
  return gateway;
}

const passwordChange = (gateway: LimitedGateway, forwardedFor?: string) => {
  const test = request(gateway.app)
    .put('/users/me/password')
    .set('Authorization', 'Basic YUBiLmM6d3Jvbmc=')
    .send({ password: 'x', access_token: aUserToken() });
  return forwardedFor ? test.set('X-Forwarded-For', forwardedFor) : test;
};

describe('per-address ceilings', () => {
  test('when two gateways share one Redis, then the credential ceiling counts across both and the next one is a 429 with the headers', async () => {
    const prefix = aKeyPrefix();
    const a = await aGateway({ REDIS_KEY_PREFIX: prefix, RATE_LIMIT_CREDENTIALS: '3/60' });
    const b = await aGateway({ REDIS_KEY_PREFIX: prefix, RATE_LIMIT_CREDENTIALS: '3/60' });
    const forwardedBefore = identity.received.length;

    const statuses = [(await passwordChange(a)).status, (await passwordChange(b)).status, (await passwordChange(a)).status];
    const refused = await passwordChange(b);

    expect(statuses).toEqual([200, 200, 200]);
    expect(refused.status).toBe(429);
    expect(refused.headers['content-type']).toContain('application/problem+json');
    expect(refused.body).toMatchObject({ status: 429, code: 'rate_limited', limit: 'credentials' });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(refused.headers['ratelimit-policy']).toContain('"credentials";q=3;w=60');
    expect(refused.headers['ratelimit']).toMatch(/^"credentials";r=0;t=\d+$/);
    // Only the three admitted requests reached the service.
    expect(identity.received.length - forwardedBefore).toBe(3);
    expect(await seriesValue(b.metrics, 'rate_limited_total', 'limit="credentials"')).toBe(1);
  });

  test('when a request is under its limits, then it carries RateLimit and RateLimit-Policy', async () => {
    const gateway = await aGateway({ REDIS_KEY_PREFIX: aKeyPrefix(), RATE_LIMIT_ALL: '50/60', RATE_LIMIT_CREDENTIALS: '5/60' });

    const res = await passwordChange(gateway);

    expect(res.status).toBe(200);
    expect(res.headers['ratelimit-policy']).toBe('"all";q=50;w=60, "credentials";q=5;w=60');
    expect(res.headers['ratelimit']).toMatch(/^"credentials";r=4;t=\d+$/);
  });

  test('when the ceiling on all routes is reached, then any route answers 429, and the master key has a higher ceiling', async () => {
    const gateway = await aGateway({ REDIS_KEY_PREFIX: aKeyPrefix(), RATE_LIMIT_ALL: '2/60', RATE_LIMIT_MASTER_FACTOR: '3' });

    const anonymous = [];
    for (let i = 0; i < 3; i += 1) anonymous.push((await request(gateway.app).get('/articles')).status);
    const master = [];
    for (let i = 0; i < 7; i += 1)
      master.push((await request(gateway.app).get('/articles').query({ access_token: TEST_MASTER_KEY })).status);

    expect(anonymous).toEqual([200, 200, 429]);
    expect(master).toEqual([200, 200, 200, 200, 200, 200, 429]);
  });

  test('when two gateways share one Redis, then the ceiling on all routes, counted in each, adds up across both', async () => {
    const prefix = aKeyPrefix();
    const a = await aGateway({ REDIS_KEY_PREFIX: prefix, RATE_LIMIT_ALL: '10/60' });
    const b = await aGateway({ REDIS_KEY_PREFIX: prefix, RATE_LIMIT_ALL: '10/60' });
    const articles = (gateway: LimitedGateway) => request(gateway.app).get('/articles');

    // Eight requests, most counted in the gateway that served them and shared with Redis later.
    const first = [];
    for (let i = 0; i < 4; i += 1) first.push((await articles(a)).status, (await articles(b)).status);
    // Several syncs later, each gateway's view has gone stale and is read again.
    await new Promise((resolve) => setTimeout(resolve, 600));
    const last = [(await articles(a)).status, (await articles(b)).status, (await articles(a)).status, (await articles(b)).status];

    expect(first).toEqual([200, 200, 200, 200, 200, 200, 200, 200]);
    expect(last).toEqual([200, 200, 429, 429]);
  });

  test('when one gateway counts the ceiling on all routes in its memory, then RateLimit counts down by one per request', async () => {
    const gateway = await aGateway({ REDIS_KEY_PREFIX: aKeyPrefix(), RATE_LIMIT_ALL: '100/60' });

    const remaining = [];
    for (let i = 0; i < 5; i += 1)
      remaining.push(/r=(\d+)/.exec((await request(gateway.app).get('/articles')).headers['ratelimit'] ?? '')?.[1]);

    expect(remaining).toEqual(['99', '98', '97', '96', '95']);
  });
});

describe('client address', () => {
  test('when X-Forwarded-For comes from a trusted proxy, then each client has its own ceiling and the service gets its signed address', async () => {
    const gateway = await aGateway({ REDIS_KEY_PREFIX: aKeyPrefix(), RATE_LIMIT_CREDENTIALS: '1/60', TRUSTED_PROXIES: 'loopback' });

    const first = await passwordChange(gateway, '203.0.113.7');
    const again = await passwordChange(gateway, '203.0.113.7');
    const other = await passwordChange(gateway, '203.0.113.8');

    expect([first.status, again.status, other.status]).toEqual([200, 429, 200]);
    const received = identity.last();
    expect(received.headers['x-forwarded-for']).toBe('203.0.113.8');
    expect(verifyClientAddress(received.headers['x-restgate-client'], TEST_PRINCIPAL_SECRET, 'PUT', '/users/me/password')).toBe(
      '203.0.113.8',
    );
  });

  test('when no proxy is trusted, then X-Forwarded-For is ignored and a client-sent address header is replaced', async () => {
    const gateway = await aGateway({ REDIS_KEY_PREFIX: aKeyPrefix(), RATE_LIMIT_CREDENTIALS: '1/60' });

    const first = await passwordChange(gateway, '203.0.113.9').set('X-Restgate-Client', 'forged');
    const second = await passwordChange(gateway, '203.0.113.10');

    expect([first.status, second.status]).toEqual([200, 429]);
    const received = identity.received.at(-1)!;
    expect(verifyClientAddress(received.headers['x-restgate-client'], TEST_PRINCIPAL_SECRET, 'PUT', '/users/me/password')).toMatch(
      /127\.0\.0\.1$/,
    );
  });
});
