import { uniqueSuffix } from '@restgate/shared/testing';
import { ObjectId } from 'mongodb';
import { expectProblem, startIdentity, type IdentityHarness, type TestUser } from './support/identity-harness';

describe('GET /users filters, after and count', () => {
  let h: IdentityHarness;
  let admin: TestUser;
  beforeAll(async () => {
    h = await startIdentity();
    admin = await h.aUser({ role: 'admin' });
  });
  afterAll(() => h.close());

  const list = (query: string) => h.call('get', `/users${query}`, admin.principal);
  const ids = (res: { body: { rows: Array<{ id: string }> } }) => res.body.rows.map((r) => r.id).sort();

  /** Users sharing a fresh marker in their names. */
  async function someUsers(specs: Array<{ role?: 'user' | 'admin'; email?: string }>): Promise<{ marker: string; users: TestUser[] }> {
    const marker = `m${uniqueSuffix()}`;
    const users: TestUser[] = [];
    for (const spec of specs) users.push(await h.aUser({ name: `${marker} u`, ...spec }));
    return { marker, users };
  }

  test('when role, role[ne] and role[in] are given, then exactly the matching users', async () => {
    const { marker, users } = await someUsers([{ role: 'admin' }, { role: 'user' }]);

    const [admins, others, both] = await Promise.all([
      list(`?q=${marker}&role=admin`),
      list(`?q=${marker}&role[ne]=admin`),
      list(`?q=${marker}&role[in]=user,admin`),
    ]);

    expect(ids(admins)).toEqual([users[0]!.id]);
    expect(ids(others)).toEqual([users[1]!.id]);
    expect(ids(both)).toEqual(users.map((u) => u.id).sort());
  });

  test('when emailVerified is given, then users proven either way, older documents included', async () => {
    const { marker, users } = await someUsers([{}, {}, {}]);
    const col = h.db.collection('users');
    await col.updateOne({ _id: new ObjectId(users[0]!.id) }, { $set: { emailVerified: true } });
    // Stored before the flag: verified through a provider link.
    await col.updateOne(
      { _id: new ObjectId(users[1]!.id) },
      { $unset: { emailVerified: '' }, $set: { providers: { github: `gh${marker}` } } },
    );

    const [verified, not] = await Promise.all([list(`?q=${marker}&emailVerified=true`), list(`?q=${marker}&emailVerified=false`)]);

    expect(ids(verified)).toEqual([users[0]!.id, users[1]!.id].sort());
    expect(ids(not)).toEqual([users[2]!.id]);
  });

  test('when email and email[prefix] are given, then the exact address (any case) or those starting with it', async () => {
    const marker = `m${uniqueSuffix()}`;
    const { users } = await someUsers([{ email: `${marker}.ada@example.com` }, { email: `${marker}.bob@example.com` }]);

    const [exact, prefix] = await Promise.all([list(`?email=${marker.toUpperCase()}.ADA@example.com`), list(`?email[prefix]=${marker}.`)]);

    expect(ids(exact)).toEqual([users[0]!.id]);
    expect(ids(prefix)).toEqual(users.map((u) => u.id).sort());
  });

  test('when createdAt[gte] is given, then only users created since', async () => {
    const { marker, users } = await someUsers([{}]);
    const since = new Date(Date.now() - 60_000).toISOString();

    const [recent, future] = await Promise.all([
      list(`?q=${marker}&createdAt[gte]=${since}`),
      list(`?q=${marker}&createdAt[gt]=2999-01-01`),
    ]);

    expect(ids(recent)).toEqual([users[0]!.id]);
    expect(future.body.rows).toEqual([]);
  });

  test('when walked by after with count=false while users are added, then every original user once', async () => {
    const { marker, users } = await someUsers([{}, {}, {}, {}, {}]);
    const seen: string[] = [];

    let url: string | undefined = `?q=${marker}&limit=2&count=false`;
    while (url) {
      const res = await list(url);
      expect(res.status).toBe(200);
      expect(res.body.count).toBeUndefined();
      seen.push(...res.body.rows.map((r: { id: string }) => r.id));
      await someUsers([{}]);
      const next = /<\/users(\?[^>]*)>; rel="next"/.exec(res.headers.link ?? '');
      url = next?.[1];
    }

    expect(seen).toEqual(users.map((u) => u.id).reverse());
  });

  test.each([
    ['role=owner', 'role'],
    ['emailVerified=maybe', 'emailVerified'],
    ['emailVerified[ne]=true', 'emailVerified[ne]'],
    ['createdAt[lt]=soon', 'createdAt[lt]'],
    ['email=not-an-email', 'email'],
    ['name=x', 'name'],
    ['after=abc.def', 'after'],
  ])('when %s, then 400 naming %s', async (query, param) => {
    expectProblem(await list(`?${query}`), 400, param);
  });
});
