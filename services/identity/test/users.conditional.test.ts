import { basic, expectProblem, startIdentity, type IdentityHarness, type TestUser } from './support/identity-harness';

describe('conditional requests on /users/:id and /users/me', () => {
  let h: IdentityHarness;
  let admin: TestUser;
  beforeAll(async () => {
    h = await startIdentity();
    admin = await h.aUser({ role: 'admin' });
  });
  afterAll(() => h.close());

  test('when a user is read, then a strong ETag; If-None-Match with it is 304; a profile change gives a new one', async () => {
    const user = await h.aUser();

    const first = await h.call('get', `/users/${user.id}`);
    const again = await h.call('get', `/users/${user.id}`).set('If-None-Match', first.headers.etag!);
    const own = await h.call('get', '/users/me', user.principal);
    const changed = await h.call('patch', `/users/${user.id}`, user.principal).send({ name: 'Someone else' });
    const after = await h.call('get', `/users/${user.id}`).set('If-None-Match', first.headers.etag!);

    expect(first.headers.etag).toMatch(/^"[^"]+"$/);
    expect(again.status).toBe(304);
    // Two views, two tags: the public one is made of what it shows.
    expect(own.headers.etag).not.toBe(first.headers.etag);
    expect(changed.headers.etag).not.toBe(first.headers.etag);
    expect(after.status).toBe(200);
    expect(after.headers.etag).not.toBe(first.headers.etag);
  });

  test('when the password changes, then the own view gets a new ETag and the public view keeps its own: nobody polling it learns of the change', async () => {
    const user = await h.aUser();
    const publicBefore = (await h.call('get', `/users/${user.id}`)).headers.etag!;
    const ownBefore = (await h.call('get', '/users/me', user.principal)).headers.etag!;

    const changed = await h
      .call('put', `/users/${user.id}/password`, user.principal)
      .set('Authorization', basic(user.email, user.password))
      .send({ password: `pw-new-${user.id}` });

    expect(changed.status).toBe(200);
    expect((await h.call('get', '/users/me', user.principal)).headers.etag).not.toBe(ownBefore);
    const cached = await h.call('get', `/users/${user.id}`).set('If-None-Match', publicBefore);
    expect(cached.status).toBe(304);
  });

  test('when an admin writes with the If-Match of the public view, then it is honoured like the user tag: current passes, stale is 412', async () => {
    const user = await h.aUser({ name: 'Before' });
    const publicTag = (await h.call('get', `/users/${user.id}`)).headers.etag!;

    const first = await h.call('patch', `/users/${user.id}`, admin.principal).set('If-Match', publicTag).send({ name: 'One' });
    const second = await h.call('patch', `/users/${user.id}`, admin.principal).set('If-Match', publicTag).send({ name: 'Two' });

    expect(first.status).toBe(200);
    expectProblem(second, 412);
  });

  test.each(['put', 'patch'] as const)('when %s of a profile names a stale If-Match, then 412 and the name stays', async (method) => {
    const user = await h.aUser({ name: 'Before' });
    const { etag } = (await h.call('get', '/users/me', user.principal)).headers;
    await h.call(method, '/users/me', user.principal).send({ name: 'First' });

    const res = await h.call(method, `/users/${user.id}`, user.principal).set('If-Match', etag!).send({ name: 'Second' });

    expectProblem(res, 412);
    expect(res.body.code).toBe('precondition_failed');
    expect((await h.userDoc(user.id))!.name).toBe('First');
  });

  test('when a profile change names the current ETag, then 200 with the next ETag', async () => {
    const user = await h.aUser();
    const { etag } = (await h.call('get', `/users/${user.id}`)).headers;

    const res = await h.call('patch', `/users/${user.id}`, admin.principal).set('If-Match', etag!).send({ name: 'By the admin' });

    expect(res.status).toBe(200);
    expect(res.body.name).toBe('By the admin');
    expect(res.headers.etag).not.toBe(etag);
  });

  test('when DELETE names a stale If-Match, then 412 and the user stays; with the current one, 204', async () => {
    const user = await h.aUser();
    const stale = (await h.call('get', `/users/${user.id}`)).headers.etag!;
    const current = (await h.call('patch', `/users/${user.id}`, user.principal).send({ name: 'Changed' })).headers.etag!;

    const refused = await h.call('delete', `/users/${user.id}`, admin.principal).set('If-Match', stale);
    const kept = await h.userDoc(user.id);
    const deleted = await h.call('delete', `/users/${user.id}`, admin.principal).set('If-Match', current);

    expectProblem(refused, 412);
    expect(kept).not.toBeNull();
    expect(deleted.status).toBe(204);
    expect(await h.userDoc(user.id)).toBeNull();
  });
});
