import { signClientAddress } from '@restgate/shared/http';
import { TEST_PRINCIPAL_SECRET } from '@restgate/shared/testing';
import { eventually } from '../../mailer/test/support/eventually';
import { basic, expectProblem, MASTER, startIdentity, unknownId, type IdentityHarness, type TestUser } from './support/identity-harness';

/** Sign-in as the gateway forwards it from client `address`. */
function signInFrom(h: IdentityHarness, address: string, email: string, password: string) {
  return h
    .call('post', '/auth', MASTER)
    .set('Authorization', basic(email, password))
    .set('X-Restgate-Client', signClientAddress(address, TEST_PRINCIPAL_SECRET, 'POST', '/auth'));
}

/** `count` wrong passwords for `user` sent at once from `address`: how many answers of each status, and how many comparisons they cost. */
async function burstOfWrongPasswords(h: IdentityHarness, address: string, user: TestUser, count: number): Promise<Record<string, number>> {
  const before = h.hasher.stats().completed;
  const replies = await Promise.all(Array.from({ length: count }, (_, i) => signInFrom(h, address, user.email, `burst-${i}`)));
  const outcome: Record<string, number> = {};
  for (const { status } of replies) outcome[status] = (outcome[status] ?? 0) + 1;
  return { ...outcome, checks: h.hasher.stats().completed - before };
}

async function seriesValue(h: IdentityHarness, name: string, labels: string): Promise<number> {
  const line = (await h.metrics.render()).split('\n').find((l) => l.startsWith(`${name}{${labels}}`));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

describe('POST /auth: the password back-off', () => {
  let h: IdentityHarness;
  beforeAll(async () => {
    h = await startIdentity(
      { PASSWORD_BACKOFF_FREE_FAILURES: '2', PASSWORD_BACKOFF_BASE_SECONDS: '1', PASSWORD_BACKOFF_MAX_SECONDS: '4' },
      { abuse: true },
    );
  });
  afterAll(() => h.close());

  /** Tries a wrong password from `address` until the back-off lets it through, and returns that 401. */
  const failOnceMore = (user: TestUser, address: string) =>
    eventually(
      async () => {
        const res = await signInFrom(h, address, user.email, 'wrong-password');
        return res.status === 429 ? null : res;
      },
      { what: 'the back-off to let a try through', timeoutMs: 10_000, intervalMs: 200 },
    );

  test('when wrong passwords follow each other, then after the free ones each try must wait longer, and a success resets it', async () => {
    const user = await h.aUser();
    const address = '198.51.100.1';

    const free = [
      (await signInFrom(h, address, user.email, 'wrong-1')).status,
      (await signInFrom(h, address, user.email, 'wrong-2')).status,
    ];
    const third = await signInFrom(h, address, user.email, 'wrong-3');
    const waiting = await signInFrom(h, address, user.email, user.password);

    expect(free).toEqual([401, 401]);
    expect(third.status).toBe(401);
    expectProblem(waiting, 429);
    expect(waiting.body.code).toBe('rate_limited');
    expect(waiting.headers['retry-after']).toBe('1');
    expect(waiting.headers['ratelimit']).toMatch(/^"password-backoff";r=0;t=1$/);
    expect(waiting.headers['ratelimit-policy']).toBe('"password-backoff";q=2;w=4');

    expect((await failOnceMore(user, address)).status).toBe(401);
    const longer = await signInFrom(h, address, user.email, user.password);
    expectProblem(longer, 429);
    expect(longer.headers['retry-after']).toBe('2');

    const success = await eventually(
      async () => {
        const res = await signInFrom(h, address, user.email, user.password);
        return res.status === 429 ? null : res;
      },
      { what: 'the right password to be tried', timeoutMs: 10_000, intervalMs: 200 },
    );
    expect(success.status).toBe(201);
    // Reset: the free failures are free again.
    expect((await signInFrom(h, address, user.email, 'wrong-again')).status).toBe(401);
    expect((await signInFrom(h, address, user.email, 'wrong-again')).status).toBe(401);
    expect(await seriesValue(h, 'rate_limited_total', 'limit="password-backoff"')).toBeGreaterThanOrEqual(2);
  });

  test('when a guesser is held back, then the owner at another address signs in at once with the right password', async () => {
    const user = await h.aUser();
    for (const guess of ['a-wrong-1', 'a-wrong-2', 'a-wrong-3']) await signInFrom(h, '198.51.100.2', user.email, guess);
    expect((await signInFrom(h, '198.51.100.2', user.email, user.password)).status).toBe(429);

    const owner = await signInFrom(h, '203.0.113.50', user.email, user.password);

    expect(owner.status).toBe(201);
    expect(owner.body.user.id).toBe(user.id);
  });

  test('when many wrong passwords from one address arrive at once, then only the free failures and one more are checked (points are reserved before each check)', async () => {
    const user = await h.aUser();

    const outcome = await burstOfWrongPasswords(h, '198.51.100.9', user, 19);

    // PASSWORD_BACKOFF_FREE_FAILURES=2: the third failure is the first that makes the next try wait.
    expect(outcome).toEqual({ 401: 3, 429: 16, checks: 3 });
  });

  test('when the right password comes at once with wrong ones from the same address, then the success resets nothing the wrong ones still need', async () => {
    const user = await h.aUser();
    const address = '198.51.100.10';

    const [right] = await Promise.all([signInFrom(h, address, user.email, user.password), signInFrom(h, address, user.email, 'wrong-now')]);

    expect(right.status).toBe(201);
    expect((await signInFrom(h, address, user.email, user.password)).status).toBe(201);
  });

  test('when the back-off refuses a try, then no hash is computed for it', async () => {
    const user = await h.aUser();
    for (const guess of ['b-wrong-1', 'b-wrong-2', 'b-wrong-3']) await signInFrom(h, '198.51.100.3', user.email, guess);
    const before = h.hasher.stats().completed;

    const refused = await signInFrom(h, '198.51.100.3', user.email, 'b-wrong-4');

    expect(refused.status).toBe(429);
    expect(h.hasher.stats().completed).toBe(before);
  });
});

describe('POST /auth: the per-account ceiling', () => {
  let h: IdentityHarness;
  beforeAll(async () => {
    h = await startIdentity({ PASSWORD_BACKOFF_FREE_FAILURES: '10', PASSWORD_ACCOUNT_FAILURES: '3/600' }, { abuse: true });
  });
  afterAll(() => h.close());

  test('when wrong passwords come from many addresses, then past the looser account ceiling every address that failed waits, and other accounts do not', async () => {
    const user = await h.aUser();
    const other = await h.aUser();
    for (const [i, address] of ['192.0.2.1', '192.0.2.2', '192.0.2.3'].entries()) {
      expect((await signInFrom(h, address, user.email, `wrong-${i}`)).status).toBe(401);
    }

    const held = await signInFrom(h, '192.0.2.1', user.email, user.password);

    expectProblem(held, 429);
    expect(held.body.limit).toBe('password-account');
    expect(Number(held.headers['retry-after'])).toBeGreaterThan(500);
    expect((await signInFrom(h, '192.0.2.1', other.email, other.password)).status).toBe(201);
  });

  test('when the ceiling is reached, then the owner signs in at once with the right password from an address with no failures: no lock-out', async () => {
    const user = await h.aUser();
    for (const [i, address] of ['192.0.2.11', '192.0.2.12', '192.0.2.13', '192.0.2.14'].entries()) {
      await signInFrom(h, address, user.email, `wrong-${i}`);
    }

    const owner = await signInFrom(h, '192.0.2.15', user.email, user.password);

    expect(owner.status).toBe(201);
    expect(owner.body.user.id).toBe(user.id);
  });

  test('when the ceiling is reached, then a new address gets one check, and after a wrong one it waits like the others', async () => {
    const user = await h.aUser();
    for (const [i, address] of ['192.0.2.21', '192.0.2.22', '192.0.2.23'].entries()) await signInFrom(h, address, user.email, `wrong-${i}`);
    const before = h.hasher.stats().completed;

    const first = await signInFrom(h, '192.0.2.24', user.email, 'wrong-new');
    const second = await signInFrom(h, '192.0.2.24', user.email, user.password);

    expectProblem(first, 401);
    expectProblem(second, 429);
    expect(second.body.limit).toBe('password-account');
    expect(h.hasher.stats().completed - before).toBe(1);
  });

  test('when many wrong passwords for one account arrive at once, then no more are checked than the ceiling allows', async () => {
    const user = await h.aUser();

    const outcome = await burstOfWrongPasswords(h, '192.0.2.31', user, 12);

    expect(outcome).toEqual({ 401: 3, 429: 9, checks: 3 });
  });
});

/** A password change as the gateway forwards it: `principal` (the caller's token, if any) and Basic. */
function changeFrom(h: IdentityHarness, path: string, authorization: string, principal?: TestUser['principal']) {
  return h.call('put', path, principal).set('Authorization', authorization).send({ password: 'new-password-1' });
}

describe('PUT /users/:id/password: no oracle linking ids to e-mails', () => {
  let h: IdentityHarness;
  let open: IdentityHarness;
  beforeAll(async () => {
    h = await startIdentity();
    // An operator who opened the route to HTTP Basic alone: the e-mail names the account.
    open = await startIdentity({ ROUTE_POLICY: 'PUT /users/:id/password=basic;PUT /users/me/password=basic' });
  });
  afterAll(async () => {
    await h.close();
    await open.close();
  });

  /** The answer, and how many password comparisons it cost. */
  const costOf = async (harness: IdentityHarness, send: () => Promise<{ status: number; body: Record<string, unknown> }>) => {
    const before = harness.hasher.stats().completed;
    const res = await send();
    return { status: res.status, code: res.body.code, checks: harness.hasher.stats().completed - before };
  };

  test("when Basic <e-mail>:<anything> is sent on an id, then one comparison and the same 401 whether the e-mail owns the id, another's, or none", async () => {
    const alice = await open.aUser();
    const bob = await open.aUser();
    const guess = basic(alice.email, 'anything-at-all');

    const owned = await costOf(open, () => changeFrom(open, `/users/${alice.id}/password`, guess));
    const another = await costOf(open, () => changeFrom(open, `/users/${bob.id}/password`, guess));
    const none = await costOf(open, () => changeFrom(open, `/users/${unknownId()}/password`, guess));

    const wrong = { status: 401, code: 'invalid_credentials', checks: 1 };
    expect([owned, another, none]).toEqual([wrong, wrong, wrong]);
  });

  test('when a token comes with Basic of its own e-mail, of another user or of nobody, then one comparison and the same 401', async () => {
    const alice = await h.aUser();
    const bob = await h.aUser();

    const own = await costOf(h, () => changeFrom(h, '/users/me/password', basic(alice.email, 'anything-at-all'), alice.principal));
    const other = await costOf(h, () => changeFrom(h, '/users/me/password', basic(bob.email, 'anything-at-all'), alice.principal));
    const nobody = await costOf(h, () => changeFrom(h, '/users/me/password', basic('nobody@example.com', 'x-anything'), alice.principal));

    const wrong = { status: 401, code: 'invalid_credentials', checks: 1 };
    expect([own, other, nobody]).toEqual([wrong, wrong, wrong]);
  });
});
