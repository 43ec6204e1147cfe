import { expectProblem, MASTER, startIdentity, unknownId, type IdentityHarness } from './support/identity-harness';

describe.each(['put', 'patch'] as const)('%s /users/:id and /users/me', (method) => {
  let h: IdentityHarness;
  beforeAll(async () => {
    h = await startIdentity();
  });
  afterAll(() => h.close());

  test('when a user renames themself through /users/me (form), then 200 with the full view, and the picture stays', async () => {
    const user = await h.aUser();
    const before = await h.userDoc(user.id);

    const res = await h.call(method, '/users/me', user.principal).type('form').send({ name: '  New Name ' });

    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: user.id,
      name: 'New Name',
      picture: before?.picture,
      email: user.email,
      role: 'user',
      emailVerified: false,
      createdAt: expect.any(String),
    });
    expect(await h.userDoc(user.id)).toMatchObject({ name: 'New Name', picture: before?.picture, passwordHash: before?.passwordHash });
  });

  test('when a user changes their picture through /users/:id (JSON), then the name stays', async () => {
    const user = await h.aUser({ name: 'Keep Me' });

    const res = await h.call(method, `/users/${user.id}`, user.principal).send({ picture: 'https://example.com/me.png' });

    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: 'Keep Me', picture: 'https://example.com/me.png' });
    expect(await h.userDoc(user.id)).toMatchObject({ name: 'Keep Me', picture: 'https://example.com/me.png' });
  });

  test('when role, e-mail and password come along, then they are ignored and only the name changes', async () => {
    const user = await h.aUser();
    const before = await h.userDoc(user.id);

    const res = await h
      .call(method, '/users/me', user.principal)
      .type('form')
      .send({ name: 'Sneaky', role: 'admin', email: 'taken-over@example.com', password: 'new-password', passwordHash: 'x' });

    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: 'Sneaky', role: 'user', email: user.email });
    expect(await h.userDoc(user.id)).toMatchObject({ name: 'Sneaky', role: 'user', email: user.email, passwordHash: before?.passwordHash });
  });

  test('when the body is empty, then 200 and nothing changes', async () => {
    const user = await h.aUser({ name: 'Unchanged' });

    const res = await h.call(method, `/users/${user.id}`, user.principal).send({});

    expect(res.status).toBe(200);
    expect(res.body.name).toBe('Unchanged');
  });

  test("when an admin changes another user's profile, then 200", async () => {
    const admin = await h.aUser({ role: 'admin' });
    const user = await h.aUser();

    const res = await h.call(method, `/users/${user.id}`, admin.principal).type('form').send({ name: 'Set By Admin' });

    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: user.id, name: 'Set By Admin', role: 'user' });
    expect((await h.userDoc(user.id))?.name).toBe('Set By Admin');
  });

  test("when a user changes another user's profile, then 403 and it is unchanged", async () => {
    const user = await h.aUser({ name: 'Victim' });
    const other = await h.aUser();

    const res = await h.call(method, `/users/${user.id}`, other.principal).type('form').send({ name: 'Hacked' });

    expectProblem(res, 403);
    expect((await h.userDoc(user.id))?.name).toBe('Victim');
  });

  test.each([
    ['no principal', 401, undefined],
    ['the master key', 403, MASTER],
  ])('when the caller has %s, then %i', async (_label, status, principal) => {
    const user = await h.aUser({ name: 'Untouched' });

    const res = await h.call(method, `/users/${user.id}`, principal).type('form').send({ name: 'Changed' });
    const me = await h.call(method, '/users/me', principal).type('form').send({ name: 'Changed' });

    expectProblem(res, status);
    expectProblem(me, status);
    expect((await h.userDoc(user.id))?.name).toBe('Untouched');
  });

  test.each([
    ['unknown', unknownId()],
    ['malformed', 'nope'],
  ])('when an admin names an %s id, then 404', async (_label, id) => {
    const admin = await h.aUser({ role: 'admin' });

    const res = await h.call(method, `/users/${id}`, admin.principal).type('form').send({ name: 'Ghost' });

    expectProblem(res, 404);
  });

  test('when the user behind the token no longer exists, then /users/me is a 404', async () => {
    const res = await h.call(method, '/users/me', { kind: 'user', id: unknownId(), role: 'user' }).send({ name: 'Ghost' });

    expectProblem(res, 404);
  });

  test.each([
    ['an empty name', { name: '' }, 'name'],
    ['a name of 129 characters', { name: 'n'.repeat(129) }, 'name'],
    ['a picture that is not a URL', { picture: 'not a url' }, 'picture'],
    ['an ftp picture', { picture: 'ftp://example.com/a.png' }, 'picture'],
  ])('when the body has %s, then 400 naming it and nothing changes', async (_label, body, param) => {
    const user = await h.aUser({ name: 'Stable' });

    const res = await h.call(method, '/users/me', user.principal).type('form').send(body);

    expectProblem(res, 400, param);
    expect((await h.userDoc(user.id))?.name).toBe('Stable');
  });
});
