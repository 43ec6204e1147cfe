import { signClientAddress } from '@restgate/shared';
import { TEST_PRINCIPAL_SECRET } from '@restgate/shared/testing';
import { eventually } from '../../mailer/test/support/eventually';
import { basic, expectProblem, MASTER, startIdentity, type IdentityHarness, type TestUser } from './support/identity-harness';

/** Sign-in as the gateway forwards it from client `address`. */
function signInFrom(h: IdentityHarness, address: string, email: string, password: string) {
  return h
    .call('post', '/auth', MASTER)
    .set('Authorization', basic(email, password))
    .set('X-Restgate-Client', signClientAddress(address, TEST_PRINCIPAL_SECRET, 'POST', '/auth'));
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

  test('when wrong passwords come from many addresses, then past the looser account ceiling every address waits, and other accounts do not', async () => {
    const user = await h.aUser();
    const other = await h.aUser();
    for (const [i, address] of ['192.0.2.1', '192.0.2.2', '192.0.2.3'].entries()) {
      expect((await signInFrom(h, address, user.email, `wrong-${i}`)).status).toBe(401);
    }

    const held = await signInFrom(h, '192.0.2.4', user.email, user.password);

    expectProblem(held, 429);
    expect(held.body.limit).toBe('password-account');
    expect(Number(held.headers['retry-after'])).toBeGreaterThan(500);
    expect((await signInFrom(h, '192.0.2.4', other.email, other.password)).status).toBe(201);
  });
});

describe('PUT /users/:id/password: no oracle', () => {
  let h: IdentityHarness;
  beforeAll(async () => {
    h = await startIdentity({}, { abuse: true });
  });
  afterAll(() => h.close());

  test("when someone sends their own right or wrong password on another user's id, then the same 401 and no hash is computed", async () => {
    const alice = await h.aUser();
    const bob = await h.aUser();
    const before = h.hasher.stats().completed;

    const right = await h
      .call('put', `/users/${bob.id}/password`)
      .set('Authorization', basic(alice.email, alice.password))
      .send({ password: 'new-password-1' });
    const wrong = await h
      .call('put', `/users/${bob.id}/password`)
      .set('Authorization', basic(alice.email, 'not-it-at-all'))
      .send({ password: 'new-password-1' });

    expectProblem(right, 401);
    expectProblem(wrong, 401);
    const strip = (body: Record<string, unknown>) => ({ ...body, requestId: undefined });
    expect(strip(right.body)).toEqual(strip(wrong.body));
    expect(right.headers['www-authenticate']).toBe(wrong.headers['www-authenticate']);
    expect(h.hasher.stats().completed).toBe(before);
  });
});
