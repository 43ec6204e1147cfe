/**
 * A realistic walk through the articles routes and listings at the gateway: an admin and two
 * users sign up and in, the users write articles, anyone lists them with each listing parameter,
 * then they are updated and deleted by each kind of caller. Every reply is checked for shape;
 * after every refused request the article it named is stored exactly as before.
 */
import { uniqueSuffix } from '@restgate/shared/testing';
import { anArticle } from '../support/actors';
import { aMember, type Member } from '../support/cast';
import { client, type Client, type Reply } from '../support/http';
import { storedRecord, untouched } from '../support/records';
import { expectJson, expectListing, expectNoContent, linksOf } from '../support/replies';
import { articleView, expectProblem } from '../support/shapes';
import { startTestStack, type TestStack } from '../support/stack';

let stack: TestStack;
let api: Client;
/** In the titles of the listed articles only, so `q=<marker>` finds exactly them. */
const marker = `list${uniqueSuffix()}`;
let admin: Member;
let alice: Member;
let bob: Member;
/** The listed articles by title word, in the order they were written. */
const listed: Record<string, any> = {};
const WRITTEN = ['charlie', 'alpha', 'echo', 'bravo', 'delta'] as const;

const byToken = (member: Member) => ({ bearer: member.token });
const articlesDb = () => stack.db('articles');
const ids = (rows: Array<{ id: string }>) => rows.map((row) => row.id);
const idsOf = (...words: Array<(typeof WRITTEN)[number]>) => words.map((word) => listed[word].id);

async function write(author: Member, article: { title: string; content: string }): Promise<any> {
  const view = expectJson(await api.post('/articles', { ...byToken(author), form: article }), 201, articleView, 'article view');
  expect(view).toMatchObject({ ...article, user: { id: author.id } });
  expect(view.updatedAt).toBe(view.createdAt);
  return view;
}

beforeAll(async () => {
  stack = await startTestStack();
  api = client(stack.url);
  const people = `cast${uniqueSuffix()}`;
  admin = await aMember(api, stack, 'admin', { marker: people, role: 'admin' });
  alice = await aMember(api, stack, 'alice', { marker: people });
  bob = await aMember(api, stack, 'bob', { marker: people });
  // Written in an order that is neither the title order nor its reverse, alternating authors.
  const contents: Record<string, string> = {
    charlie: 'Notes on C++ templates.',
    alpha: 'Regex characters stay literal: (a+)+$ and [x].*? match only themselves.',
    echo: 'Plain text.',
    bravo: 'More plain text.',
    delta: 'The last one.',
  };
  for (const [index, word] of WRITTEN.entries()) {
    listed[word] = await write(index % 2 === 0 ? alice : bob, { title: `${marker} ${word}`, content: contents[word]! });
  }
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

describe('GET /articles (public listing)', () => {
  const list = (query: Record<string, string>) => api.get('/articles', { query });
  const all = { count: WRITTEN.length, page: 1, limit: 30 };

  test('when anyone lists with q=<marker>, then the five, newest first, as full views equal to what creation answered', async () => {
    const reply = await list({ q: marker });

    const rows = expectListing(reply, articleView, all);
    expect(ids(rows)).toEqual(idsOf('delta', 'bravo', 'echo', 'alpha', 'charlie'));
    expect(rows).toContainEqual(listed.alpha);
    expect(linksOf(reply).last!.params.get('q')).toBe(marker);
  });

  test('when a user lists with the token in the query string, then the same rows as anyone, and no link carries the token', async () => {
    const anonymous = await list({ q: marker });
    const asBob = await list({ q: marker, access_token: bob.token });

    expect(expectListing(asBob, articleView, all)).toEqual(anonymous.body.rows);
    expect(asBob.headers.get('link')).not.toContain(bob.token);
  });

  test('when q holds characters that mean something in a URL, then the links carry q unchanged', async () => {
    const q = `${marker} ?&#%+`;

    const reply = await list({ q, limit: '1' });

    expectListing(reply, articleView, { count: 0, page: 1, limit: 1 });
    expect(linksOf(reply).first!.params.get('q')).toBe(q);
  });

  test('when q is the marker in upper case, then the search is case-insensitive', async () => {
    expectListing(await list({ q: marker.toUpperCase() }), articleView, all);
  });

  test.each([
    ['(a+)+$', ['alpha']],
    ['.*', ['alpha']],
    ['[x]', ['alpha']],
    ['C++', ['charlie']],
    ['c++ TEMPLATES', ['charlie']],
  ] as const)('when q is %j, then regex characters are literal: it matches %j only', async (q, words) => {
    const rows = expectListing(await list({ q }), articleView, { count: words.length, page: 1, limit: 30 });

    expect(ids(rows)).toEqual(idsOf(...words));
  });

  test('when q is 100 characters, then 200 (the limit is inclusive)', async () => {
    const rows = expectListing(await list({ q: 'y'.repeat(100) }), articleView, { count: 0, page: 1, limit: 30 });

    expect(rows).toEqual([]);
  });

  test('when sort=title, then ascending; sort=-title, descending; sort=createdAt, the order they were written', async () => {
    const byTitle = expectListing(await list({ q: marker, sort: 'title' }), articleView, all);
    const byTitleDesc = expectListing(await list({ q: marker, sort: '-title' }), articleView, all);
    const byCreation = expectListing(await list({ q: marker, sort: 'createdAt' }), articleView, all);

    expect(ids(byTitle)).toEqual(idsOf('alpha', 'bravo', 'charlie', 'delta', 'echo'));
    expect(ids(byTitleDesc)).toEqual(idsOf('echo', 'delta', 'charlie', 'bravo', 'alpha'));
    expect(ids(byCreation)).toEqual(idsOf(...WRITTEN));
  });

  test('when paging by 2, then three pages that the links walk through, together the whole sorted list', async () => {
    const seen: string[] = [];
    let reply = await list({ q: marker, sort: 'title', limit: '2' });
    for (const page of [1, 2, 3]) {
      seen.push(...ids(expectListing(reply, articleView, { count: 5, page, limit: 2, byCursor: page > 1 })));
      const next = linksOf(reply).next;
      if (page < 3) {
        expect(next!.params.get('sort')).toBe('title');
        reply = await api.get(next!.path);
      }
    }

    expect(seen).toEqual(idsOf('alpha', 'bravo', 'charlie', 'delta', 'echo'));
  });

  test('when page=2&limit=2, then the middle page directly, with first, prev, next and last', async () => {
    const rows = expectListing(await list({ q: marker, sort: '-title', page: '2', limit: '2' }), articleView, {
      count: 5,
      page: 2,
      limit: 2,
    });

    expect(ids(rows)).toEqual(idsOf('charlie', 'bravo'));
  });

  test('when the page is past the end, then no rows, the full count, and prev pointing to the last page', async () => {
    const reply = await list({ q: marker, page: '4', limit: '2' });

    expect(expectListing(reply, articleView, { count: 5, page: 4, limit: 2 })).toEqual([]);
  });

  test.each([
    [['title'], 'title'],
    [['title', 'user'], 'title,user'],
    [['content'], 'id,content'],
    [[], 'id'],
  ])('when fields selects %j (fields=%s), then each row has those and id only', async (fields, param) => {
    const rows = expectListing(await list({ q: marker, fields: param, sort: 'title' }), articleView, { ...all, fields });

    const { alpha } = listed;
    expect(rows[0]).toEqual(Object.fromEntries(Object.entries(alpha).filter(([key]) => key === 'id' || fields.includes(key))));
  });

  test.each([
    ['limit', { limit: '101' }],
    ['limit', { limit: '0' }],
    ['limit', { limit: 'ten' }],
    ['page', { page: '0' }],
    ['page', { page: '-1' }],
    ['page', { page: '101', limit: '1' }],
    ['sort', { sort: 'password' }],
    ['sort', { sort: 'title,-content' }],
    ['fields', { fields: 'password' }],
    ['fields', { fields: 'title,userId' }],
    ['q', { q: 'x'.repeat(101) }],
  ])('when %s is out of range or not allowed (%j), then 400 naming it', async (param, query) => {
    expectProblem(await list(query), 400, { code: 'validation_failed', param });
  });

  test.each([
    ['color', { color: 'blue' }],
    ['user[$ne]', { 'user[$ne]': 'x' }],
  ])('when an unknown parameter is sent (%s), then 400 naming it', async (param, query) => {
    expectProblem(await list({ q: marker, ...query }), 400, { code: 'validation_failed', param });
  });
});

describe('GET /articles/:id', () => {
  test('when anyone asks, then 200 with the view creation answered', async () => {
    expect(expectJson(await api.get(`/articles/${listed.bravo.id}`), 200, articleView)).toEqual(listed.bravo);
  });

  test.each([
    ['unknown', '0123456789abcdef01234567'],
    ['not well formed', 'not-an-id'],
  ])('when the id is %s, then 404', async (_kind, id) => {
    expectProblem(await api.get(`/articles/${id}`), 404);
  });
});

describe('PUT and PATCH /articles/:id', () => {
  test.each(['PUT', 'PATCH'])(
    'when the owner sends %s with one field, then it changes, the other stays, and updatedAt moves',
    async (method) => {
      const article = await write(alice, anArticle());
      const title = `Retitled ${uniqueSuffix()}`;
      const content = `Rewritten ${uniqueSuffix()}`;

      const retitled = expectJson(
        await api.request(method, `/articles/${article.id}`, { ...byToken(alice), form: { title } }),
        200,
        articleView,
      );
      const rewritten = expectJson(
        await api.request(method, `/articles/${article.id}`, { ...byToken(alice), json: { content } }),
        200,
        articleView,
      );

      expect(retitled).toMatchObject({
        id: article.id,
        title,
        content: article.content,
        user: { id: alice.id },
        createdAt: article.createdAt,
      });
      expect(rewritten).toMatchObject({ id: article.id, title, content, user: { id: alice.id }, createdAt: article.createdAt });
      expect(Date.parse(retitled.updatedAt)).toBeGreaterThan(Date.parse(article.updatedAt));
      expect(Date.parse(rewritten.updatedAt)).toBeGreaterThanOrEqual(Date.parse(retitled.updatedAt));
      expect(expectJson(await api.get(`/articles/${article.id}`), 200, articleView)).toEqual(rewritten);
    },
  );

  test('when the body names another owner, id or timestamps, then they are ignored', async () => {
    const article = await write(alice, anArticle());
    const title = `Kept owner ${uniqueSuffix()}`;

    const reply = await api.request('PATCH', `/articles/${article.id}`, {
      ...byToken(alice),
      json: { title, user: { id: bob.id }, userId: bob.id, id: listed.alpha.id, createdAt: '2000-01-01T00:00:00.000Z' },
    });

    expect(expectJson(reply, 200, articleView)).toMatchObject({
      id: article.id,
      title,
      user: { id: alice.id },
      createdAt: article.createdAt,
    });
    expect(await storedRecord(articlesDb(), listed.alpha.id)).toMatchObject({ title: listed.alpha.title });
  });

  test.each(['PUT', 'PATCH'])('when the other user sends %s, then 403, and the article is unchanged', async (method) => {
    const article = await write(alice, anArticle());

    const reply = await untouched(articlesDb(), article.id, () =>
      api.request(method, `/articles/${article.id}`, { ...byToken(bob), form: { title: 'Taken over' } }),
    );

    expectProblem(reply, 403, { code: 'not_owner' });
    expect(expectJson(await api.get(`/articles/${article.id}`), 200, articleView)).toEqual(article);
  });

  test.each(['PUT', 'PATCH'])("when the admin sends %s to a user's article, then 200, and the owner stays", async (method) => {
    const article = await write(bob, anArticle());
    const content = `Moderated ${uniqueSuffix()}`;

    const reply = await api.request(method, `/articles/${article.id}`, { ...byToken(admin), form: { content } });

    expect(expectJson(reply, 200, articleView)).toMatchObject({ id: article.id, title: article.title, content, user: { id: bob.id } });
  });

  test('when the master key updates an article, then 403: the master key is not a user; and nobody signed in gets 401', async () => {
    const article = await write(bob, anArticle());
    const update = (options: object) => untouched(articlesDb(), article.id, () => api.request('PUT', `/articles/${article.id}`, options));

    expectProblem(await update({ form: { title: 'By master', access_token: stack.secrets.MASTER_KEY } }), 403);
    const anonymous = await update({ form: { title: 'By nobody' } });
    expectProblem(anonymous, 401);
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer realm="restgate"');
  });

  test.each([
    ['body', {}],
    ['body', { user: 'someone' }],
    ['title', { title: '' }],
    ['title', { title: 't'.repeat(201) }],
    ['content', { content: 'c'.repeat(100_001) }],
  ])('when the owner sends an invalid update (%s), then 400 naming it, and the article is unchanged', async (param, json) => {
    const article = await write(alice, anArticle());

    const reply = await untouched(articlesDb(), article.id, () =>
      api.request('PATCH', `/articles/${article.id}`, { ...byToken(alice), json }),
    );

    expectProblem(reply, 400, { code: 'validation_failed', param });
  });

  test.each([
    ['unknown', '0123456789abcdef01234567'],
    ['not well formed', 'not-an-id'],
  ])('when the id is %s, then 404', async (_kind, id) => {
    expectProblem(await api.request('PATCH', `/articles/${id}`, { ...byToken(admin), form: { title: 'Nothing' } }), 404);
  });
});

describe('DELETE /articles/:id', () => {
  test('when the other user, the master key or nobody deletes, then 403, 403, 401, and the article is still there', async () => {
    const article = await write(alice, anArticle());
    const del = (options: object) => untouched(articlesDb(), article.id, () => api.request('DELETE', `/articles/${article.id}`, options));

    expectProblem(await del(byToken(bob)), 403, { code: 'not_owner' });
    expectProblem(await del({ query: { access_token: stack.secrets.MASTER_KEY } }), 403);
    expectProblem(await del({}), 401);
    expect(expectJson(await api.get(`/articles/${article.id}`), 200, articleView)).toEqual(article);
  });

  test('when the owner deletes, then 204, GET is a 404, the listing no longer has it, and a second delete is a 404', async () => {
    const article = await write(bob, anArticle());

    expectNoContent(await api.request('DELETE', `/articles/${article.id}`, byToken(bob)));

    expectProblem(await api.get(`/articles/${article.id}`), 404);
    expectListing(await api.get('/articles', { query: { q: article.title } }), articleView, { count: 0, page: 1, limit: 30 });
    expect(await storedRecord(articlesDb(), article.id)).toBeNull();
    expectProblem(await api.request('DELETE', `/articles/${article.id}`, byToken(bob)), 404);
  });

  test("when the admin deletes a user's article, then 204", async () => {
    const article = await write(alice, anArticle());

    expectNoContent(await api.request('DELETE', `/articles/${article.id}`, byToken(admin)));

    expect(await storedRecord(articlesDb(), article.id)).toBeNull();
  });
});

describe('routes', () => {
  test('when the path is unknown, then a 404 problem', async () => {
    expectProblem(await api.get(`/articles/${listed.alpha.id}/comments`), 404, { code: 'route_not_found' });
    expectProblem(await api.get('/no-such-resource'), 404, { code: 'route_not_found' });
  });

  test.each([
    ['DELETE', '/articles', ['GET', 'HEAD', 'POST']],
    ['POST', '/articles/:id', ['DELETE', 'GET', 'HEAD', 'PATCH', 'PUT']],
  ])('when %s %s, then 405 with Allow, and nothing changes', async (method, path, allowed) => {
    const id = listed.echo.id;

    const reply: Reply = await untouched(articlesDb(), id, () =>
      api.request(method, path.replace(':id', id), { ...byToken(admin), form: { title: 'Not allowed' } }),
    );

    expectProblem(reply, 405, { code: 'method_not_allowed' });
    expect((reply.headers.get('allow') ?? '').split(/,\s*/).sort()).toEqual(allowed);
  });
});
