import { basic, expectProblem, MASTER, startIdentity, unknownId, type IdentityHarness, type TestUser } from './support/identity-harness';

describe('PUT /users/:id/password and /users/me/password', () => {
  let h: IdentityHarness;
  beforeAll(async () => {
    h = await startIdentity();
  });
  afterAll(() => h.close());

  const signIn = (email: string, password: string) => h.call('post', '/auth', MASTER).set('Authorization', basic(email, password));

  test('when a user sends their token, their Basic credentials and a new password (form) to /users/me/password, then 200 and only the new password signs in', async () => {
    const user = await h.aUser();
    const before = await h.userDoc(user.id);

    const res = await h
      .call('put', '/users/me/password', user.principal)
      .set('Authorization', basic(user.email, user.password))
      .type('form')
      .send({ password: 'brand-new-password' });

    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: user.id,
      name: expect.any(String),
      picture: expect.any(String),
      email: user.email,
      role: 'user',
      emailVerified: false,
      createdAt: expect.any(String),
    });
    expect((await h.userDoc(user.id))?.passwordHash).not.toBe(before?.passwordHash);
    expect((await signIn(user.email, 'brand-new-password')).status).toBe(201);
    expect((await signIn(user.email, user.password)).status).toBe(401);
  });

  test('when a user changes it through /users/:id/password (JSON), then 200', async () => {
    const user = await h.aUser();

    const res = await h
      .call('put', `/users/${user.id}/password`, user.principal)
      .set('Authorization', basic(user.email, user.password))
      .send({ password: 'another-new-one' });

    expect(res.status).toBe(200);
    expect((await signIn(user.email, 'another-new-one')).status).toBe(201);
  });

  test.each([
    ['an existing user', async (h: IdentityHarness) => (await h.aUser()).id],
    ['an unknown id', async () => unknownId()],
  ])("when a user's own token and Basic credentials come with an id that is %s, then 403 and nothing changes", async (_label, target) => {
    const attacker = await h.aUser();
    const id = await target(h);
    const before = id.length === 24 ? await h.userDoc(id) : null;
    const checks = h.hasher.stats().completed;

    const res = await h
      .call('put', `/users/${id}/password`, attacker.principal)
      .set('Authorization', basic(attacker.email, attacker.password))
      .type('form')
      .send({ password: 'taken-over-now' });

    // Decided from the caller's own token, before any password work: it tells nothing about anyone's password.
    expectProblem(res, 403);
    expect(res.body.code).toBe('not_your_password');
    expect(h.hasher.stats().completed).toBe(checks);
    if (before) expect((await h.userDoc(id))?.passwordHash).toBe(before.passwordHash);
    expect((await signIn(attacker.email, attacker.password)).status).toBe(201);
  });

  test.each([
    ['a wrong password', (email: string) => basic(email, 'wrong-password')],
    ['an unknown e-mail', () => basic('nobody@example.com', 'whatever-password')],
    ["an e-mail that is not the token user's", () => basic('someone-else@example.com', 'whatever-password')],
    ['no Authorization header', () => undefined],
    ['a malformed Basic header', () => 'Basic %%%'],
  ])('when the request has %s, then 401 with a Basic challenge and nothing changes', async (_label, authorization) => {
    const user = await h.aUser();
    const before = await h.userDoc(user.id);
    const header = authorization(user.email);

    let req = h.call('put', `/users/${user.id}/password`, user.principal);
    if (header) req = req.set('Authorization', header);
    const res = await req.type('form').send({ password: 'new-password-x' });

    expectProblem(res, 401);
    expect(res.headers['www-authenticate']).toBe('Basic realm="restgate"');
    expect((await h.userDoc(user.id))?.passwordHash).toBe(before?.passwordHash);
  });

  test('when the caller has a user token but no Basic credentials, then 401: a token is not enough', async () => {
    const user = await h.aUser();

    const res = await h.call('put', '/users/me/password', user.principal).type('form').send({ password: 'new-password-x' });

    expectProblem(res, 401);
    expect(res.headers['www-authenticate']).toBe('Basic realm="restgate"');
  });

  test.each([
    ['/users/me/password', (_user: TestUser) => '/users/me/password'],
    ['/users/:id/password', (user: TestUser) => `/users/${user.id}/password`],
  ])('when %s comes with the right Basic credentials but no user token, then 401 before any password is checked, and nothing changes', async (_label, path) => {
    const user = await h.aUser();
    const before = await h.userDoc(user.id);
    const checks = h.hasher.stats().completed;

    const res = await h.call('put', path(user)).set('Authorization', basic(user.email, user.password)).type('form').send({ password: 'new-password-x' });

    expectProblem(res, 401);
    expect(h.hasher.stats().completed).toBe(checks);
    expect((await h.userDoc(user.id))?.passwordHash).toBe(before?.passwordHash);
  });

  test.each([
    ['no new password', {}],
    ['a short one', { password: 'short' }],
    ['one over 256 characters', { password: 'ß'.repeat(257) }],
  ])('when the body has %s, then 400 naming password and nothing changes', async (_label, body) => {
    const user = await h.aUser();
    const before = await h.userDoc(user.id);

    const res = await h
      .call('put', '/users/me/password', user.principal)
      .set('Authorization', basic(user.email, user.password))
      .type('form')
      .send(body);

    expectProblem(res, 400, 'password');
    expect((await h.userDoc(user.id))?.passwordHash).toBe(before?.passwordHash);
  });
});
