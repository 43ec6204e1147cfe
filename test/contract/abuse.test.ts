/**
 * The attacks of the abuse-protection issue, replayed through the gateway of a whole stack: each
 * meets a 429 (or the same harmless answer) before it can do harm, while the account's owner,
 * from another address, still gets in at once. Client addresses come from `X-Forwarded-For`,
 * which the stack believes from loopback (`TRUSTED_PROXIES=loopback`), so each test is its own
 * set of clients.
 */
import type { ParsedMail } from 'mailparser';
import { uniqueSuffix } from '@restgate/shared/testing';
import { aSignedInUser, aUser, signUp, type UserInput } from '../support/actors';
import { client, type Client, type Reply } from '../support/http';
import { outboxMails, recipientOf } from '../support/outbox';
import { expectProblem } from '../support/shapes';
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

let addressCount = 0;
/** A client address of its own (TEST-NET-3), as the gateway will see it. */
const anAddress = () => `203.0.113.${(++addressCount % 250) + 1}`;

const signInFrom = (address: string, user: UserInput): Promise<Reply> =>
  api.post('/auth', {
    basic: { user: user.email, password: user.password },
    form: { access_token: stack.secrets.MASTER_KEY },
    headers: { 'x-forwarded-for': address },
  });

/** A 429 of the gateway's per-address credentials ceiling (not identity's back-off). */
const byTheGateway = (reply: Reply): boolean => reply.status === 429 && reply.body?.limit === 'credentials';

function expectLimited(reply: Reply): void {
  expectProblem(reply, 429);
  expect(Number(reply.headers.get('retry-after'))).toBeGreaterThan(0);
}

/** The reset mails to `email` (sign-up mails a verification link too, which is not counted here). */
async function outboxMailsTo(email: string): Promise<ParsedMail[]> {
  return (await outboxMails(stack.outboxDir)).filter((m) => recipientOf(m) === email && m.subject === 'Reset your password');
}

describe('password guessing through POST /auth', () => {
  test('when one address guesses an account, then 429 with Retry-After comes before the guesses can go on, and the owner signs in at once from another address', async () => {
    const owner = aUser();
    expect((await signUp(api, stack, owner)).status).toBe(201);
    const attacker = anAddress();

    const replies: Reply[] = [];
    for (let i = 0; i < 12; i++) replies.push(await signInFrom(attacker, { ...owner, password: `guess-${i}-${uniqueSuffix()}` }));
    const fromOwner = await signInFrom(anAddress(), owner);

    const statuses = replies.map((r) => r.status);
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(6);
    expect(statuses).not.toContain(201);
    expectLimited(replies.at(-1)!);
    expect(fromOwner.status).toBe(201);
  });

  test('when the right password follows guesses from the same address, then it waits too (the back-off decides before any hashing)', async () => {
    const owner = aUser();
    await signUp(api, stack, owner);
    const attacker = anAddress();
    for (let i = 0; i < 8; i++) await signInFrom(attacker, { ...owner, password: `guess-${i}-${uniqueSuffix()}` });

    const reply = await signInFrom(attacker, owner);

    expectLimited(reply);
  });
});

describe('an account-wide lock-out (the audit\'s M1)', () => {
  test('when 100 wrong passwords come on PUT /users/me/password from 26 addresses, then every one is 401 at the gateway without a user token, and the owner signs in', async () => {
    const owner = aUser();
    expect((await signUp(api, stack, owner)).status).toBe(201);
    const addresses = Array.from({ length: 26 }, anAddress);

    const statuses: number[] = [];
    for (let i = 0; i < 100; i++) {
      const reply = await api.request('PUT', '/users/me/password', {
        basic: { user: owner.email, password: `guess-${i}` },
        form: { password: 'attacker-password' },
        headers: { 'x-forwarded-for': addresses[i % addresses.length]! },
      });
      statuses.push(reply.status);
    }
    const fromOwner = await signInFrom(anAddress(), owner);

    expect(new Set(statuses)).toEqual(new Set([401]));
    expect(fromOwner.status).toBe(201);
  });

  test('when wrong passwords from many addresses pass the account-wide ceiling, then the owner still signs in with the right password from a new address', async () => {
    const owner = aUser();
    expect((await signUp(api, stack, owner)).status).toBe(201);

    const statuses: number[] = [];
    for (let a = 0; a < 26; a++) {
      const address = anAddress();
      for (let i = 0; i < 5; i++) statuses.push((await signInFrom(address, { ...owner, password: `guess-${a}-${i}` })).status);
    }
    const fromOwner = await signInFrom(anAddress(), owner);

    // PASSWORD_ACCOUNT_FAILURES (100/3600) was reached: the last addresses were held back.
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(0);
    expect(fromOwner.status).toBe(201);
  }, 60_000);
});

describe('PUT /users/:id/password', () => {
  test("when Alice's token and Basic credentials are sent on Bob's id, then a right and a wrong password get the same 403", async () => {
    const alice = await aSignedInUser(api, stack);
    const bob = await aSignedInUser(api, stack);
    const from = anAddress();
    const change = (password: string) =>
      api.request('PUT', `/users/${bob.id}/password`, {
        basic: { user: alice.user.email, password },
        form: { password: `new-${uniqueSuffix()}`, access_token: alice.token },
        headers: { 'x-forwarded-for': from },
      });

    const wrong = await change('not-alices-password');
    const right = await change(alice.user.password);

    // Decided from Alice's own token before any password work: the same 403 for both.
    expectProblem(wrong, 403);
    expectProblem(right, 403);
    expect(right.body.code).toBe(wrong.body.code);
    expect(right.body.detail).toBe(wrong.body.detail);
  });

  test('when one address floods password changes with made-up credentials, then the gateway answers 429 with Retry-After past its ceiling', async () => {
    const from = anAddress();
    const { token } = await aSignedInUser(api, stack);
    const flood = Array.from({ length: 30 }, (_, i) =>
      api.request('PUT', '/users/me/password', {
        basic: { user: `nobody-${i}-${uniqueSuffix()}@example.com`, password: 'whatever-it-is' },
        form: { password: 'a-new-password', access_token: token },
        headers: { 'x-forwarded-for': from },
      }),
    );

    const replies = await Promise.all(flood);

    // The ceiling's refusals; the account's back-off (identity) may refuse some of the others too.
    const limited = replies.filter(byTheGateway);
    expect(limited.length).toBeGreaterThanOrEqual(10);
    expectLimited(limited[0]!);
    expect(limited[0]!.headers.get('ratelimit-policy')).toMatch(/"credentials";q=\d+;w=\d+/);
    // The rest were checked and refused, held back, or found the hash queue full (503, Retry-After): never let through.
    for (const reply of replies.filter((r) => !byTheGateway(r))) expect([401, 429, 503]).toContain(reply.status);
  });
});

describe('two gateway processes on one Redis', () => {
  test('when one address spreads password checks over both, then they share one ceiling', async () => {
    const second = await stack.startGateway();
    try {
      const other = client(second.url);
      const from = anAddress();
      const { token } = await aSignedInUser(api, stack);
      const check = (via: Client, i: number) =>
        via.request('PUT', '/users/me/password', {
          basic: { user: `nobody-${i}-${uniqueSuffix()}@example.com`, password: 'whatever-it-is' },
          form: { password: 'a-new-password', access_token: token },
          headers: { 'x-forwarded-for': from },
        });

      const viaFirst: Reply[] = [];
      for (let i = 0; i < 12; i++) viaFirst.push(await check(api, i));
      const viaSecond: Reply[] = [];
      for (let i = 0; i < 12; i++) viaSecond.push(await check(other, i));

      // 20 checks a minute per address by default (RATE_LIMIT_CREDENTIALS), counted once for both.
      // (The guesses are all on one account, so identity's back-off answers some of the 20 itself.)
      expect(viaFirst.filter(byTheGateway)).toHaveLength(0);
      expect(viaSecond.filter((r) => !byTheGateway(r))).toHaveLength(8);
      expectLimited(viaSecond.at(-1)!);
      expect(byTheGateway(viaSecond.at(-1)!)).toBe(true);
    } finally {
      await second.stop();
    }
  });
});

describe('POST /password-resets', () => {
  test('when one address asks many times, then every answer is the same 202 and no mail goes out past the cap', async () => {
    const user = aUser();
    await signUp(api, stack, user);
    const from = anAddress();
    const ask = () =>
      api.post('/password-resets', { form: { email: user.email, access_token: stack.secrets.MASTER_KEY }, headers: { 'x-forwarded-for': from } });
    const mailsArrive = async (count: number) => {
      const deadline = Date.now() + 20_000;
      while ((await outboxMailsTo(user.email)).length < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    };

    // Each of the first three waits for its mail (a newer request replaces a reset whose mail is
    // still pending); then seven more, past the cap of three an hour (RESET_MAILS_PER_EMAIL).
    const replies: Reply[] = [];
    for (let i = 1; i <= 3; i++) {
      replies.push(await ask());
      await mailsArrive(i);
    }
    for (let i = 0; i < 7; i++) replies.push(await ask());
    await new Promise((r) => setTimeout(r, 3_000));

    expect(replies.map((r) => r.status)).toEqual(Array(10).fill(202));
    expect(new Set(replies.map((r) => JSON.stringify(r.body))).size).toBe(1);
    expect((await outboxMailsTo(user.email)).length).toBe(3);
  });
});
