import { expectProblem, MASTER, startIdentity, unknownId, type IdentityHarness } from './support/identity-harness';

describe('GET /users/me', () => {
  let h: IdentityHarness;
  beforeAll(async () => {
    h = await startIdentity();
  });
  afterAll(() => h.close());

  test('when a user asks, then 200 with their full view and whether MFA is on', async () => {
    const user = await h.aUser({ name: 'Me Myself' });

    const res = await h.call('get', '/users/me', user.principal);

    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: user.id,
      name: 'Me Myself',
      email: user.email,
      picture: expect.any(String),
      role: 'user',
      emailVerified: false,
      createdAt: expect.any(String),
      mfa: { totp: false },
    });
  });

  test('when an admin asks, then their own full view', async () => {
    const admin = await h.aUser({ role: 'admin' });

    const res = await h.call('get', '/users/me', admin.principal);

    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: admin.id, role: 'admin' });
  });

  test('when the token belongs to a user that no longer exists, then 404', async () => {
    const res = await h.call('get', '/users/me', { kind: 'user', id: unknownId(), role: 'user' });

    expectProblem(res, 404);
  });

  test.each([
    ['no principal', 401, undefined],
    ['the master key', 403, MASTER],
  ])('when the caller has %s, then %i', async (_label, status, principal) => {
    const res = await h.call('get', '/users/me', principal);

    expectProblem(res, status);
    if (status === 401) expect(res.headers['www-authenticate']).toBe('Bearer realm="restgate"');
  });
});

describe('GET /users/:id', () => {
  let h: IdentityHarness;
  beforeAll(async () => {
    h = await startIdentity();
  });
  afterAll(() => h.close());

  test('when anyone asks for a user, then 200 with the public view only', async () => {
    const user = await h.aUser({ name: 'Public Person' });

    const res = await h.call('get', `/users/${user.id}`);

    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: user.id, name: 'Public Person', picture: expect.stringContaining('gravatar.com') });
  });

  test('when the master key or another user asks, then still the public view', async () => {
    const user = await h.aUser();
    const other = await h.aUser();

    const asMaster = await h.call('get', `/users/${user.id}`, MASTER);
    const asOther = await h.call('get', `/users/${user.id}`, other.principal);

    expect(Object.keys(asMaster.body).sort()).toEqual(['id', 'name', 'picture']);
    expect(Object.keys(asOther.body).sort()).toEqual(['id', 'name', 'picture']);
  });

  test('when the id is in upper case, then it still names the user', async () => {
    const user = await h.aUser();

    const res = await h.call('get', `/users/${user.id.toUpperCase()}`);

    expect(res.status).toBe(200);
    expect(res.body.id).toBe(user.id);
  });

  test.each([
    ['unknown', unknownId()],
    ['malformed', 'not-an-id'],
    ['almost an id', 'z'.repeat(24)],
  ])('when the id is %s, then 404', async (_label, id) => {
    const res = await h.call('get', `/users/${id}`);

    expectProblem(res, 404);
    expect(res.body.code).toBe('user_not_found');
  });
});
