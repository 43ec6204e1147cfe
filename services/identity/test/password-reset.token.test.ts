import { ObjectId } from 'mongodb';
import { basic, expectProblem, MASTER, startIdentity, type IdentityHarness, type TestUser } from './support/identity-harness';
import { aPasswordReset, resets, resetsOf } from './support/password-resets';

/** GET and PUT /password-resets/:token, with resets made by the builder (no broker involved). */
describe('GET and PUT /password-resets/:token', () => {
  let h: IdentityHarness;
  beforeAll(async () => {
    h = await startIdentity();
  });
  afterAll(() => h.close());

  const signIn = (email: string, password: string) => h.call('post', '/auth', MASTER).set('Authorization', basic(email, password));
  const get = (token: string) => h.call('get', `/password-resets/${encodeURIComponent(token)}`);
  const put = (token: string, body: Record<string, string>) =>
    h
      .call('put', `/password-resets/${encodeURIComponent(token)}`)
      .type('form')
      .send(body);

  test('when the token is live, then GET answers 200 with whose it is, and changes nothing', async () => {
    const user = await h.aUser({ name: 'Grace' });
    const { token } = await aPasswordReset(h, user);

    const res = await get(token);

    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      user: { id: user.id, name: 'Grace', picture: expect.stringMatching(/^https:\/\/gravatar\.com\//), email: user.email },
    });
    expect(await resetsOf(h, user.id)).toHaveLength(1);
  });

  test("when the token is live, then PUT sets the password (200 full view), the token and the user's other tokens end, and only the new password signs in", async () => {
    const user = await h.aUser();
    const other = await h.aUser();
    const { token } = await aPasswordReset(h, user);
    const sibling = await aPasswordReset(h, user, { beside: true });
    const othersReset = await aPasswordReset(h, other);
    const before = await h.userDoc(user.id);

    const res = await put(token, { password: 'a-brand-new-password' });

    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: user.id,
      name: expect.any(String),
      picture: expect.any(String),
      email: user.email,
      role: 'user',
      emailVerified: true,
      createdAt: expect.any(String),
    });
    expect((await h.userDoc(user.id))?.passwordHash).not.toBe(before?.passwordHash);
    expect(await resetsOf(h, user.id)).toEqual([]);
    expectProblem(await get(sibling.token), 404);
    expect((await get(othersReset.token)).status).toBe(200);
    expect((await signIn(user.email, 'a-brand-new-password')).status).toBe(201);
    expectProblem(await signIn(user.email, user.password), 401);
  });

  test('when a token is used twice, then the second GET and PUT are 404 and the password stays the first new one', async () => {
    const user = await h.aUser();
    const { token } = await aPasswordReset(h, user);
    expect((await put(token, { password: 'first-new-password' })).status).toBe(200);

    const again = await put(token, { password: 'second-new-password' });
    const look = await get(token);

    expectProblem(again, 404);
    expect(again.body.code).toBe('password_reset_not_found');
    expectProblem(look, 404);
    expect((await signIn(user.email, 'first-new-password')).status).toBe(201);
  });

  const deadTokens: Array<[string, (user: TestUser) => Promise<string>]> = [
    ['expired', async (user) => (await aPasswordReset(h, user, { expiresAt: new Date(Date.now() - 1_000) })).token],
    [
      'used',
      async (user) => {
        const { token } = await aPasswordReset(h, user);
        expect((await put(token, { password: 'used-up-password' })).status).toBe(200);
        return token;
      },
    ],
    ['unknown (well formed)', async () => 'A'.repeat(43)],
    ['malformed (too short)', async () => 'abc'],
    ['malformed (not base64url)', async () => `${'A'.repeat(42)}$`],
    ['malformed (an operator)', async () => '{"$ne":null}'],
  ];

  test.each(deadTokens)('when the token is %s, then GET and PUT are 404 and the password does not change', async (_label, makeToken) => {
    const user = await h.aUser();
    const token = await makeToken(user);
    const before = await h.userDoc(user.id);

    const look = await get(token);
    const change = await put(token, { password: 'should-not-be-set' });

    expectProblem(look, 404);
    expectProblem(change, 404);
    expect(look.body.code).toBe('password_reset_not_found');
    expect((await h.userDoc(user.id))?.passwordHash).toBe(before?.passwordHash);
  });

  test('when the user was deleted after asking, then GET and PUT are 404', async () => {
    const user = await h.aUser();
    const { token } = await aPasswordReset(h, user);
    await h.db.collection('users').deleteOne({ email: user.email });

    expectProblem(await get(token), 404);
    expectProblem(await put(token, { password: 'nobody-to-set-it-for' }), 404);
  });

  test.each([
    ['no password', {}],
    ['a short one', { password: 'short' }],
    ['one over 256 characters', { password: 'ß'.repeat(257) }],
  ])('when PUT has %s, then 400 naming password, and the token still works', async (_label, body) => {
    const user = await h.aUser();
    const { token } = await aPasswordReset(h, user);

    const res = await put(token, body);

    expectProblem(res, 400, 'password');
    expect((await get(token)).status).toBe(200);
    expect((await put(token, { password: 'now-a-good-one' })).status).toBe(200);
  });

  test('when two PUTs race with one token, then exactly one is 200 and the other 404, and the winner’s password is set', async () => {
    for (let round = 0; round < 5; round++) {
      const user = await h.aUser();
      const { token } = await aPasswordReset(h, user);

      const [a, b] = await Promise.all([put(token, { password: 'password-from-a' }), put(token, { password: 'password-from-b' })]);

      expect([a.status, b.status].sort()).toEqual([200, 404]);
      const winner = a.status === 200 ? 'password-from-a' : 'password-from-b';
      expect((await signIn(user.email, winner)).status).toBe(201);
    }
  });

  test('when expired rows are cleaned up, then only those go', async () => {
    const user = await h.aUser();
    const expired = await aPasswordReset(h, user, { expiresAt: new Date(Date.now() - 1_000) });
    const live = await aPasswordReset(h, user, { beside: true });

    const removed = await h.links.passwordResets.links.deleteExpired(new Date());

    expect(removed).toBeGreaterThanOrEqual(1);
    expect(await resets(h).findOne({ _id: new ObjectId(expired.id) })).toBeNull();
    expect((await resetsOf(h, user.id)).map((r) => r._id.toHexString())).toEqual([live.id]);
  });
});
