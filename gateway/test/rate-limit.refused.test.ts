import { listen, type RunningServer } from '@restgate/shared/http';
import { aKeyPrefix, startLimitedGateway, type LimitedGateway } from './support/limited-gateway';
import { aUserToken, tamperedToken, TEST_MASTER_KEY, unsignedToken } from './support/tokens';
import { startUpstream, type TestUpstream } from './support/upstream';

/**
 * Floods of requests the gateway refuses before any ceiling was counted (audit L2: 700 wrong
 * master keys, 700 bad tokens and 300 malformed bodies from one address in half a second, and no
 * 429). Every flood here comes from 127.0.0.1 and is bounded in count.
 */
let identity: TestUpstream;
let articles: TestUpstream;
const running: Array<{ gateway: LimitedGateway; server: RunningServer }> = [];

beforeAll(async () => {
  identity = await startUpstream();
  articles = await startUpstream();
});

afterAll(async () => {
  for (const { gateway, server } of running) {
    await server.stop(1_000);
    await gateway.close();
  }
  await Promise.all([identity.close(), articles.close()]);
});

/** A limited gateway listening on loopback (a flood through supertest would open a server per request). */
async function aGateway(env: Record<string, string> = {}): Promise<string> {
  const gateway = await startLimitedGateway({
    IDENTITY_URL: identity.url,
    ARTICLES_URL: articles.url,
    REDIS_KEY_PREFIX: aKeyPrefix(),
    ...env,
  });
  const server = await listen(gateway.app, 0, '127.0.0.1');
  running.push({ gateway, server });
  return server.url;
}

interface Answer {
  status: number;
  retryAfter: string | null;
  code?: string;
}

/** Sends `count` requests made by `make(i)`, `concurrency` at a time, and returns the answers in order. */
async function flood(count: number, make: (i: number) => [string, RequestInit?], concurrency = 25): Promise<Answer[]> {
  const answers: Answer[] = new Array(count);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < count; i = next++) {
      const [url, init] = make(i);
      const res = await fetch(url, init);
      const body = (await res.json().catch(() => ({}))) as { code?: string };
      answers[i] = { status: res.status, retryAfter: res.headers.get('retry-after'), code: body.code };
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return answers;
}

const countOf = (answers: Answer[], status: number) => answers.filter((a) => a.status === status).length;

function expectEvery429Limited(answers: Answer[]): void {
  const limited = answers.filter((a) => a.status === 429);
  expect(limited.every((a) => a.code === 'rate_limited' && Number(a.retryAfter) >= 1)).toBe(true);
}

describe('bad credentials', () => {
  test('when one address sends 700 wrong master keys, then after a few dozen 401s every answer is a 429 with Retry-After, and none reaches a service', async () => {
    const url = await aGateway();
    const received = identity.received.length;

    const answers = await flood(700, (i) => [
      `${url}/password-resets`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: `email=a%40b.c&access_token=${TEST_MASTER_KEY}-wrong-${i}`,
      },
    ]);

    expect(countOf(answers, 401)).toBeLessThanOrEqual(30);
    expect(countOf(answers, 429)).toBe(700 - countOf(answers, 401));
    expectEvery429Limited(answers);
    expect(identity.received.length).toBe(received);
  });

  test('when one address sends 700 bad tokens (forged, unsigned, expired, garbage), then after a few dozen 401s every answer is a 429', async () => {
    const url = await aGateway();
    const token = aUserToken();
    const bad = [
      tamperedToken(token),
      unsignedToken(token),
      aUserToken({ expiresIn: -60 }),
      aUserToken({ secret: 'another-secret-0123456789abcdef-0123' }),
      'garbage',
    ];

    const answers = await flood(700, (i) => [`${url}/articles`, { headers: { authorization: `Bearer ${bad[i % bad.length]!}` } }]);

    expect(countOf(answers, 401)).toBeLessThanOrEqual(30);
    expect(countOf(answers, 429)).toBe(700 - countOf(answers, 401));
    expectEvery429Limited(answers);
  });

  test('when valid requests come before and after, then they never spend the bad-credential ceiling and are never refused by it', async () => {
    const url = await aGateway({ RATE_LIMIT_BAD_CREDENTIALS: '3/60' });
    const user = aUserToken();

    const valid = await flood(
      40,
      (i) => [`${url}/articles`, { headers: { authorization: `Bearer ${i % 2 ? user : TEST_MASTER_KEY}` } }],
      5,
    );
    const bad = await flood(4, () => [`${url}/articles`, { headers: { authorization: `Bearer ${tamperedToken(user)}` } }], 1);
    const afterwards = await flood(
      10,
      (i) => [`${url}/articles`, { headers: { authorization: `Bearer ${i % 2 ? user : TEST_MASTER_KEY}` } }],
      2,
    );

    expect(valid.map((a) => a.status)).toEqual(new Array(40).fill(200));
    expect(bad.map((a) => a.status)).toEqual([401, 401, 401, 429]);
    expect(bad[3]).toMatchObject({ code: 'rate_limited' });
    expect(afterwards.map((a) => a.status)).toEqual(new Array(10).fill(200));
  });
});

describe('the ceiling on all routes', () => {
  test('when one address sends malformed bodies, then they count against the ceiling on all routes and the flood meets 429s', async () => {
    const url = await aGateway({ RATE_LIMIT_ALL: '100/60' });
    const bodies: RequestInit[] = [
      { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"title":' },
      { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x' },
      { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '{"title":"json as a form"}' },
      { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"access_token":"a","access_token":"b"}' },
    ];

    const answers = await flood(300, (i) => [`${url}/articles`, bodies[i % bodies.length]]);

    expect(answers.length - countOf(answers, 429)).toBeLessThanOrEqual(100);
    expect(countOf(answers, 429)).toBeGreaterThanOrEqual(200);
    expectEvery429Limited(answers);
  });

  test('when the address is over its ceiling, then a request with a bad token is a 429 before its token is checked', async () => {
    const url = await aGateway({ RATE_LIMIT_ALL: '2/60', RATE_LIMIT_BAD_CREDENTIALS: '50/60' });

    const first = await flood(2, () => [`${url}/articles`], 1);
    const refused = await flood(3, () => [`${url}/articles`, { headers: { authorization: 'Bearer garbage' } }], 1);

    expect(first.map((a) => a.status)).toEqual([200, 200]);
    expect(refused.map((a) => a.status)).toEqual([429, 429, 429]);
  });

  test('when the address is over its ceiling, then the master key still passes in the query, a header or the body (its own, higher ceiling)', async () => {
    const url = await aGateway({ RATE_LIMIT_ALL: '2/60', RATE_LIMIT_MASTER_FACTOR: '3' });
    const form = (token: string): RequestInit => ({
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `email=a%40b.c&access_token=${encodeURIComponent(token)}`,
    });

    const anonymous = await flood(3, () => [`${url}/articles`], 1);
    const inBody = await flood(2, () => [`${url}/password-resets`, form(TEST_MASTER_KEY)], 1);
    const wrongInBody = await flood(1, () => [`${url}/password-resets`, form(`${TEST_MASTER_KEY}-wrong`)], 1);
    const inQuery = await flood(1, () => [`${url}/articles?access_token=${encodeURIComponent(TEST_MASTER_KEY)}`], 1);
    const inHeader = await flood(3, () => [`${url}/articles`, { headers: { authorization: `Bearer ${TEST_MASTER_KEY}` } }], 1);

    expect(anonymous.map((a) => a.status)).toEqual([200, 200, 429]);
    expect(inBody.map((a) => a.status)).toEqual([200, 200]);
    expect(wrongInBody.map((a) => a.status)).toEqual([429]);
    // The master key's ceiling is 2 × 3 = 6: two in the body, one in the query, three in a header.
    expect(inQuery.map((a) => a.status)).toEqual([200]);
    expect(inHeader.map((a) => a.status)).toEqual([200, 200, 200]);
    expect((await flood(1, () => [`${url}/articles`, { headers: { authorization: `Bearer ${TEST_MASTER_KEY}` } }], 1))[0]).toMatchObject({
      status: 429,
    });
  });

  test('when one address floods paths no route serves (404, 405) and the docs, then they count too, while /health is never limited', async () => {
    const url = await aGateway({ RATE_LIMIT_ALL: '6/60' });

    const answers = await flood(
      9,
      (i) => [[`${url}/no-such-route/${i}`, `${url}/articles`, `${url}/docs`][i % 3]!, i % 3 === 1 ? { method: 'DELETE' } : undefined],
      1,
    );
    const health = await flood(3, () => [`${url}/health`], 1);

    expect(answers.map((a) => a.status)).toEqual([404, 405, 200, 404, 405, 200, 429, 429, 429]);
    expectEvery429Limited(answers);
    expect(health.map((a) => a.status)).toEqual([200, 200, 200]);
  });
});
