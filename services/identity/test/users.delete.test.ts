import { expectProblem, MASTER, startIdentity, unknownId, type IdentityHarness } from './support/identity-harness';

describe('DELETE /users/:id', () => {
  let h: IdentityHarness;
  beforeAll(async () => {
    h = await startIdentity();
  });
  afterAll(() => h.close());

  test('when an admin deletes a user, then 204, the document is gone and the user is a 404', async () => {
    const admin = await h.aUser({ role: 'admin' });
    const user = await h.aUser();

    const res = await h.call('delete', `/users/${user.id}`, admin.principal);

    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect(await h.userDoc(user.id)).toBeNull();
    expect((await h.call('get', `/users/${user.id}`)).status).toBe(404);
  });

  test('when the e-mail of a deleted user signs up again, then it is free', async () => {
    const admin = await h.aUser({ role: 'admin' });
    const user = await h.aUser();
    await h.call('delete', `/users/${user.id}`, admin.principal).expect(204);

    const res = await h.call('post', '/users', MASTER).type('form').send({ email: user.email, password: 'long-enough' });

    expect(res.status).toBe(201);
  });

  test('when an admin deletes /users/me, then "me" is the admin: 204 and their document is gone', async () => {
    const admin = await h.aUser({ role: 'admin' });

    const res = await h.call('delete', '/users/me', admin.principal);

    expect(res.status).toBe(204);
    expect(await h.userDoc(admin.id)).toBeNull();
  });

  test.each([
    ['unknown', unknownId()],
    ['malformed', 'me-not'],
  ])('when the id is %s, then 404', async (_label, id) => {
    const admin = await h.aUser({ role: 'admin' });

    const res = await h.call('delete', `/users/${id}`, admin.principal);

    expectProblem(res, 404);
  });

  test.each([
    ['no principal', 401, () => undefined],
    ['a user token (even their own)', 403, (self: { kind: 'user'; id: string; role: 'user' }) => self],
    ['the master key', 403, () => MASTER],
  ])('when the caller has %s, then %i and the user stays', async (_label, status, principalFor) => {
    const user = await h.aUser();

    const res = await h.call('delete', `/users/${user.id}`, principalFor({ kind: 'user', id: user.id, role: 'user' }));

    expectProblem(res, status);
    expect(await h.userDoc(user.id)).not.toBeNull();
  });
});
