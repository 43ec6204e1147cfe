/**
 * Audit 27, L2, replayed through a whole stack: one address sends 700 wrong master keys, 700 bad
 * tokens and 300 malformed bodies at once. Requests the gateway refuses before its routes' own
 * ceilings must count all the same: the flood meets 429s with Retry-After, while a client at
 * another address is served as usual. Addresses come from `X-Forwarded-For`, believed from
 * loopback (`TRUSTED_PROXIES=loopback`).
 */
import { aSignedInUser, aToken, signIn, tampered } from '../support/actors';
import { client, type Client } from '../support/http';
import { startTestStack, type TestStack } from '../support/stack';

let stack: TestStack;
let api: Client;

beforeAll(async () => {
  stack = await startTestStack({ env: { TRUSTED_PROXIES: 'loopback' } });
  api = client(stack.url);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

/** Sends every request, `concurrency` at a time, and returns the statuses and `Retry-After`s. */
async function flood(requests: Array<[string, RequestInit]>, concurrency = 50): Promise<Array<{ status: number; retryAfter: number }>> {
  const answers: Array<{ status: number; retryAfter: number }> = [];
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < requests.length; i = next++) {
      const [path, init] = requests[i]!;
      const res = await fetch(`${stack.url}${path}`, init);
      await res.arrayBuffer();
      answers.push({ status: res.status, retryAfter: Number(res.headers.get('retry-after') ?? 0) });
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return answers;
}

test('when one address sends 700 wrong master keys, 700 bad tokens and 300 malformed bodies at once, then 429s with Retry-After answer most of them, and another address is served', async () => {
  const owner = await aSignedInUser(api, stack);
  const from = { 'x-forwarded-for': '203.0.113.77' };
  const requests: Array<[string, RequestInit]> = [];
  for (let i = 0; i < 700; i++) {
    requests.push([
      '/users',
      { method: 'POST', headers: { ...from, 'content-type': 'application/x-www-form-urlencoded' }, body: `email=x${i}%40example.com&password=whatever-1&access_token=wrong-master-key-${i}` },
    ]);
    requests.push(['/users/me', { headers: { ...from, authorization: `Bearer ${i % 2 ? tampered(owner.token) : aToken(stack, owner.id, {}, 'not-the-secret-0123456789abcdef-0123')}` } }]);
    if (i < 300) requests.push(['/articles', { method: 'POST', headers: { ...from, 'content-type': 'application/json' }, body: '{"title":' }]);
  }

  const started = Date.now();
  const answers = await flood(requests);
  const elapsed = Date.now() - started;
  const fromElsewhere = await signIn(api, stack, owner.user);

  const count = (status: number) => answers.filter((a) => a.status === status).length;
  // RATE_LIMIT_BAD_CREDENTIALS (30/60) lets a few dozen bad credentials get their 401.
  expect(count(401)).toBeLessThanOrEqual(30);
  // RATE_LIMIT_ALL (600/60) counts every request as it arrives: past it, nothing but 429.
  expect(answers.length - count(429)).toBeLessThanOrEqual(600);
  expect(count(429)).toBeGreaterThanOrEqual(1_100);
  expect(answers.filter((a) => a.status === 429).every((a) => a.retryAfter >= 1)).toBe(true);
  expect(answers.filter((a) => ![400, 401, 429].includes(a.status))).toEqual([]);
  expect(fromElsewhere.status).toBe(201);
  expect(elapsed).toBeLessThan(20_000);
}, 60_000);
