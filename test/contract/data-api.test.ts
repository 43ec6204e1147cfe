import { uniqueSuffix } from '@restgate/shared/testing';
import { aSignedInUser, anArticle } from '../support/actors';
import { client, type Client, type Reply } from '../support/http';
import { expectProblem } from '../support/shapes';
import { startTestStack, type TestStack } from '../support/stack';

/**
 * The data API of listings and single resources, black-box at the gateway: filters, `after`
 * cursors, `count=false`, ETag / If-None-Match / If-Match, on articles and users.
 */
let stack: TestStack;
let api: Client;
let author: { id: string; token: string };
let other: { id: string; token: string };
let admin: { id: string; token: string };

beforeAll(async () => {
  stack = await startTestStack();
  api = client(stack.url);
  [author, other, admin] = await Promise.all([
    aSignedInUser(api, stack),
    aSignedInUser(api, stack),
    aSignedInUser(api, stack, { role: 'admin' }),
  ]);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

const ids = (reply: Reply) => (reply.body.rows as Array<{ id: string }>).map((row) => row.id).sort();
const nextLink = (reply: Reply) => /<([^>]*)>; rel="next"/.exec(reply.headers.get('link') ?? '')?.[1];

async function anArticleBy(user: { token: string }, title: string): Promise<{ id: string; createdAt: string }> {
  const reply = await api.post('/articles', { bearer: user.token, json: anArticle({ title }) });
  expect(reply.status).toBe(201);
  return reply.body;
}

describe('GET /articles filters', () => {
  test('when equality, range, in, prefix and owner filters are given, then exactly the matching articles', async () => {
    const marker = `mk${uniqueSuffix()}`;
    const a = await anArticleBy(author, `${marker} Alpha`);
    const b = await anArticleBy(other, `${marker} Beta`);
    const c = await anArticleBy(author, `${marker} Gamma`);

    const [eq, range, inList, prefix, owner, combined] = await Promise.all([
      api.get('/articles', { query: { title: `${marker} Beta` } }),
      api.get('/articles', { query: { q: marker, 'createdAt[gt]': a.createdAt, 'createdAt[lte]': c.createdAt } }),
      api.get('/articles', { query: { 'title[in]': `${marker} Alpha,${marker} Gamma` } }),
      api.get('/articles', { query: { 'title[prefix]': `${marker.toUpperCase()} g` } }),
      api.get('/articles', { query: { q: marker, user: author.id } }),
      api.get('/articles', { query: { q: marker, user: author.id, 'title[ne]': `${marker} Alpha` } }),
    ]);

    expect(ids(eq)).toEqual([b.id]);
    expect(eq.body.count).toBe(1);
    // Created in order; a and b may share a millisecond, so the range asks from after a's time.
    expect(ids(range)).toEqual(expect.arrayContaining([c.id]));
    expect(ids(range)).not.toContain(a.id);
    expect(ids(inList)).toEqual([a.id, c.id].sort());
    expect(ids(prefix)).toEqual([c.id]);
    expect(ids(owner)).toEqual([a.id, c.id].sort());
    expect(ids(combined)).toEqual([c.id]);
  });

  test.each([
    ['an unknown parameter', { foo: 'bar' }, 'foo'],
    ['an operator the field does not take', { 'title[gt]': 'a' }, 'title[gt]'],
    ['a bad value', { 'createdAt[gte]': 'last week' }, 'createdAt[gte]'],
    ['an operator injection', { 'title[$ne]': 'x' }, 'title[$ne]'],
    ['a bad owner id', { user: 'nobody' }, 'user'],
    ['a forged cursor', { after: `${'a'.repeat(20)}.${'b'.repeat(43)}` }, 'after'],
  ])('when %s is sent, then 400 naming the parameter', async (_case, query, param) => {
    expectProblem(await api.get('/articles', { query }), 400, { code: 'validation_failed', param });
  });
});

describe('GET /articles paging by after, and count=false', () => {
  test('when walked by next links with articles created between pages, then every original article comes once, in order', async () => {
    const marker = `mk${uniqueSuffix()}`;
    const originals: string[] = [];
    for (let i = 0; i < 7; i++) originals.push((await anArticleBy(author, `${marker} ${i}`)).id);
    const seen: string[] = [];

    let next: string | undefined = `/articles?q=${marker}&limit=3`;
    while (next) {
      const reply = await api.get(next);
      expect(reply.status).toBe(200);
      seen.push(...(reply.body.rows as Array<{ id: string }>).map((row) => row.id));
      await anArticleBy(other, `${marker} later`);
      next = nextLink(reply);
    }

    expect(seen.filter((id) => originals.includes(id))).toEqual([...originals].reverse());
    expect(new Set(seen).size).toBe(seen.length);
  });

  test('when count=false, then no count, no X-Total-Count, and no last link', async () => {
    const marker = `mk${uniqueSuffix()}`;
    await anArticleBy(author, `${marker} 1`);
    await anArticleBy(author, `${marker} 2`);

    const reply = await api.get('/articles', { query: { q: marker, limit: '1', count: 'false' } });

    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ rows: [expect.objectContaining({ title: `${marker} 2` })] });
    expect(reply.headers.get('x-total-count')).toBeNull();
    expect(reply.headers.get('link')).not.toContain('rel="last"');
    expect(nextLink(reply)).toContain('after=');
  });
});

describe('conditional requests on an article', () => {
  test('when read twice with If-None-Match, then 304; a stale If-Match on PATCH, PUT and DELETE is 412 and nothing changes', async () => {
    const article = await anArticleBy(author, `cond ${uniqueSuffix()}`);
    const read = await api.get(`/articles/${article.id}`);
    const etag = read.headers.get('etag')!;

    const cached = await api.get(`/articles/${article.id}`, { headers: { 'If-None-Match': etag } });
    const changed = await api.request('PATCH', `/articles/${article.id}`, {
      bearer: author.token,
      json: { title: 'changed once' },
      headers: { 'If-Match': etag },
    });
    const stale = await Promise.all(
      (['PATCH', 'PUT', 'DELETE'] as const).map((method) =>
        api.request(method, `/articles/${article.id}`, {
          bearer: author.token,
          json: method === 'DELETE' ? undefined : { title: 'lost update' },
          headers: { 'If-Match': etag },
        }),
      ),
    );
    const after = await api.get(`/articles/${article.id}`);

    expect(etag).toMatch(/^"[^"]+"$/);
    expect(cached.status).toBe(304);
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
    for (const reply of stale) expectProblem(reply, 412, { code: 'precondition_failed' });
    expect(after.body.title).toBe('changed once');
    expect(after.headers.get('etag')).toBe(changed.headers.get('etag'));
  });
});

describe('GET /users filters and conditional requests on a user', () => {
  test('when an admin filters by role, e-mail prefix and creation time, then exactly the matching users', async () => {
    const since = new Date(Date.now() - 1000).toISOString();
    const fresh = await aSignedInUser(api, stack);
    const prefix = fresh.user.email.slice(0, 12);

    const [admins, byPrefix, recent, notAdmin] = await Promise.all([
      api.get('/users', { bearer: admin.token, query: { role: 'admin', 'createdAt[gte]': since, limit: '100' } }),
      api.get('/users', { bearer: admin.token, query: { 'email[prefix]': prefix } }),
      api.get('/users', { bearer: admin.token, query: { email: fresh.user.email.toUpperCase(), 'createdAt[gte]': since } }),
      api.get('/users', { bearer: admin.token, query: { 'role[ne]': 'admin', email: fresh.user.email } }),
    ]);

    expect(ids(admins)).not.toContain(fresh.id);
    expect(ids(byPrefix)).toContain(fresh.id);
    expect(ids(recent)).toEqual([fresh.id]);
    expect(ids(notAdmin)).toEqual([fresh.id]);
    expectProblem(await api.get('/users', { bearer: admin.token, query: { 'email[ne]': 'x' } }), 400, {
      code: 'validation_failed',
      param: 'email[ne]',
    });
  });

  test('when a profile is read and changed, then ETag, 304, and 412 for a stale If-Match with the name unchanged', async () => {
    const user = await aSignedInUser(api, stack);
    const etag = (await api.get('/users/me', { bearer: user.token })).headers.get('etag')!;
    // The public view has a tag of its own, made of what it shows.
    const publicTag = (await api.get(`/users/${user.id}`)).headers.get('etag')!;

    const cached = await api.get(`/users/${user.id}`, { headers: { 'If-None-Match': publicTag } });
    const first = await api.request('PATCH', '/users/me', { bearer: user.token, json: { name: 'First' }, headers: { 'If-Match': etag } });
    const second = await api.request('PATCH', '/users/me', { bearer: user.token, json: { name: 'Second' }, headers: { 'If-Match': etag } });

    expect(cached.status).toBe(304);
    expect(first.status).toBe(200);
    expectProblem(second, 412, { code: 'precondition_failed' });
    expect((await api.get(`/users/${user.id}`)).body.name).toBe('First');
  });
});
