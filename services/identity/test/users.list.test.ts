import { uniqueSuffix } from '@restgate/shared/testing';
import { expectProblem, MASTER, startIdentity, type IdentityHarness, type TestUser } from './support/identity-harness';

describe('GET /users', () => {
  let h: IdentityHarness;
  let admin: TestUser;
  beforeAll(async () => {
    h = await startIdentity();
    admin = await h.aUser({ role: 'admin' });
  });
  afterAll(() => h.close());

  const list = (query: string, principal = admin.principal) => h.call('get', `/users${query}`, principal);

  /** Users whose names share a fresh marker, created one after the other (oldest first). */
  async function someUsers(names: string[]): Promise<{ marker: string; users: TestUser[] }> {
    const marker = `m${uniqueSuffix()}`;
    const users: TestUser[] = [];
    for (const name of names) users.push(await h.aUser({ name: `${marker} ${name}` }));
    return { marker, users };
  }

  test('when an admin lists with q, then 200 with full views newest first, the count and paging headers', async () => {
    const { marker, users } = await someUsers(['carol', 'alice', 'bob']);

    const res = await list(`?q=${marker}`);

    expect(res.status).toBe(200);
    expect(res.body.count).toBe(3);
    expect(res.body.rows.map((r: { id: string }) => r.id)).toEqual(users.map((u) => u.id).reverse());
    expect(res.body.rows[0]).toEqual({
      id: users[2]!.id,
      name: `${marker} bob`,
      email: users[2]!.email,
      picture: expect.stringContaining('https://gravatar.com/avatar/'),
      role: 'user',
      emailVerified: false,
      createdAt: expect.any(String),
    });
    expect(JSON.stringify(res.body)).not.toMatch(/password/i);
    expect(res.headers['x-total-count']).toBe('3');
    expect(res.headers.link).toContain('rel="first"');
    expect(res.headers.link).toContain('rel="last"');
    expect(res.headers.link).not.toContain('rel="next"');
  });

  test('when q matches part of an e-mail in another case, then that user is found', async () => {
    const user = await h.aUser();
    const part = user.email.split('@')[0]!.slice(5).toUpperCase();

    const res = await list(`?q=${part}`);

    expect(res.status).toBe(200);
    expect(res.body.rows.map((r: { id: string }) => r.id)).toEqual([user.id]);
  });

  test('when limit and page are given, then that page, the full count and prev/next (a cursor)/last links', async () => {
    const { marker, users } = await someUsers(['a', 'b', 'c', 'd', 'e']);

    const res = await list(`?q=${marker}&limit=2&page=2`);

    expect(res.status).toBe(200);
    expect(res.body.count).toBe(5);
    expect(res.body.rows.map((r: { id: string }) => r.id)).toEqual([users[2]!.id, users[1]!.id]);
    expect(res.headers.link).toContain(`limit=2&page=1>; rel="prev"`);
    expect(res.headers.link).toMatch(/limit=2&after=[A-Za-z0-9_.-]+>; rel="next"/);
    expect(res.headers.link).toContain(`limit=2&page=3>; rel="last"`);
  });

  test('when the page is past the end, then empty rows with the right count', async () => {
    const { marker } = await someUsers(['a', 'b']);

    const res = await list(`?q=${marker}&page=5&limit=10`);

    expect(res.status).toBe(200);
    expect(res.body).toEqual({ count: 2, rows: [] });
  });

  test('when sort names fields, then rows follow it', async () => {
    const { marker } = await someUsers(['bob', 'carol', 'alice']);

    const asc = await list(`?q=${marker}&sort=name`);
    const desc = await list(`?q=${marker}&sort=-name`);

    const names = (res: typeof asc) => res.body.rows.map((r: { name: string }) => r.name.split(' ')[1]);
    expect(names(asc)).toEqual(['alice', 'bob', 'carol']);
    expect(names(desc)).toEqual(['carol', 'bob', 'alice']);
  });

  test('when fields are chosen, then only they and id come back', async () => {
    const { marker, users } = await someUsers(['a']);

    const res = await list(`?q=${marker}&fields=name,email`);

    expect(res.status).toBe(200);
    expect(res.body.rows).toEqual([{ id: users[0]!.id, name: `${marker} a`, email: users[0]!.email }]);
  });

  test('when id is named among the fields, then it is accepted and comes back once', async () => {
    const { marker, users } = await someUsers(['a']);

    const res = await list(`?q=${marker}&fields=id,name`);

    expect(res.status).toBe(200);
    expect(res.body.rows).toEqual([{ id: users[0]!.id, name: `${marker} a` }]);
  });

  test('when q holds regex characters, then they match literally', async () => {
    const marker = `m${uniqueSuffix()}`;
    const literal = await h.aUser({ name: `${marker} a.c+(x)*` });
    await h.aUser({ name: `${marker} abcc(x)` });

    const dotted = await list(`?q=${encodeURIComponent(`${marker} a.c+(`)}`);
    const wildcard = await list(`?q=${encodeURIComponent(`${marker}.*`)}`);

    expect(dotted.body.rows.map((r: { id: string }) => r.id)).toEqual([literal.id]);
    expect(wildcard.body).toEqual({ count: 0, rows: [] });
  });

  test.each([
    ['role[$ne]=x', 'role[$ne]'],
    ['password=1', 'password'],
    ['email[ne]=a@b.c', 'email[ne]'],
  ])('when an unknown or operator-looking parameter comes along (%s), then 400 naming it', async (query, param) => {
    expectProblem(await list(`?q=x&${query}`), 400, param);
  });

  test.each([
    ['limit=101', 'limit'],
    ['limit=0', 'limit'],
    ['limit=ten', 'limit'],
    ['page=0', 'page'],
    ['sort=password', 'sort'],
    ['sort=passwordHash', 'sort'],
    ['sort=-password', 'sort'],
    ['fields=password', 'fields'],
    ['fields=name,passwordHash', 'fields'],
    [`q=${'x'.repeat(101)}`, 'q'],
  ])('when the query has %s, then 400 naming %s', async (query, param) => {
    const res = await list(`?${query}`);

    expectProblem(res, 400, param);
  });

  test('when page is 100, the fixed maximum, then it is allowed; page 101 is a 400', async () => {
    const deepest = await list('?page=100&limit=100');
    const tooDeep = await list('?page=101&limit=1');

    expect(deepest.status).toBe(200);
    expectProblem(tooDeep, 400, 'page');
  });

  test.each([
    ['no principal', 401, undefined],
    ['a user token', 403, { kind: 'user', id: 'a'.repeat(24), role: 'user' } as const],
    ['the master key', 403, MASTER],
  ])('when the caller has %s, then %i', async (_label, status, principal) => {
    const res = await h.call('get', '/users', principal);

    expectProblem(res, status);
    expect(res.body.rows).toBeUndefined();
  });
});
