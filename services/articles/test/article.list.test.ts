import {
  ACCESS,
  aMarker,
  anArticleDoc,
  callerFor,
  FIELD_NAMES,
  givenArticles,
  MARKER_FIELD,
  SORT_FIELD,
  viewOf,
  type ArticleDoc,
  describeUnless,
} from './support/builders';
import { articleResource } from '../src/resource';

/** A caller the listing's level lets in. */
const LISTER = callerFor(ACCESS.list);
const UNSORTABLE = FIELD_NAMES.find((name) => !(articleResource.sortable as readonly string[]).includes(name));
import { call, parseLinks, startArticles, type TestService } from './support/harness';

describeUnless('list')('GET /articles', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startArticles();
  });
  afterAll(async () => {
    await svc.stop();
  });

  const list = (query: Record<string, string | number | undefined>) => call(svc.app, 'get', '/articles', LISTER).query(query);
  const ids = (rows: Array<{ id: string }>) => rows.map((row) => row.id);
  const idsOf = (docs: ArticleDoc[]) => docs.map((doc) => doc._id.toHexString());

  /** `n` articles with `marker` in the marker field, the first the oldest, one second apart. */
  async function givenMarked(marker: string, n: number, overrides: (i: number) => Partial<ArticleDoc> = () => ({})): Promise<ArticleDoc[]> {
    const start = Date.now() - 3_600_000;
    return givenArticles(
      svc.articles,
      Array.from({ length: n }, (_, i) =>
        anArticleDoc({ [MARKER_FIELD]: `${marker} #${i}`, createdAt: new Date(start + i * 1000), ...overrides(i) }),
      ),
    );
  }

  describe('defaults', () => {
    test('when only q is given, then 200 with the first 30 newest first, the full count, X-Total-Count and Link', async () => {
      const marker = aMarker();
      const docs = await givenMarked(marker, 31);

      const res = await list({ q: marker });

      expect(res.status).toBe(200);
      expect(res.body.count).toBe(31);
      expect(ids(res.body.rows)).toEqual(idsOf(docs).reverse().slice(0, 30));
      expect(res.body.rows[0]).toEqual(viewOf(docs[30]!));
      expect(res.headers['x-total-count']).toBe('31');
      const links = parseLinks(res.headers.link);
      expect(Object.keys(links).sort()).toEqual(['first', 'last', 'next']);
      expect(links.first!.pathname).toBe('/articles');
      expect(links.first!.searchParams.get('q')).toBe(marker);
      expect(links.first!.searchParams.get('page')).toBe('1');
      expect(links.next!.searchParams.get('after')).toEqual(expect.any(String));
      expect(links.next!.searchParams.get('page')).toBeNull();
      expect(links.last!.searchParams.get('page')).toBe('2');
      expect(links.last!.searchParams.get('limit')).toBe('30');
    });

    test('when nothing matches, then 200 with count 0, no rows, and first = last = page 1', async () => {
      const res = await list({ q: aMarker() });

      expect(res.status).toBe(200);
      expect(res.body).toEqual({ count: 0, rows: [] });
      expect(res.headers['x-total-count']).toBe('0');
      const links = parseLinks(res.headers.link);
      expect(Object.keys(links).sort()).toEqual(['first', 'last']);
      expect(links.last!.searchParams.get('page')).toBe('1');
    });

    test.each([
      ['foo=bar', 'foo'],
      [`${MARKER_FIELD}[$ne]=x`, `${MARKER_FIELD}[$ne]`],
      ['q[$regex]=.*', 'q[$regex]'],
    ])('when the caller sends an unknown or operator-looking parameter (%s), then 400 naming it', async (param, name) => {
      const res = await call(svc.app, 'get', `/articles?q=${aMarker()}&${param}`, LISTER);

      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'validation_failed', param: name });
    });
  });

  describe('q', () => {
    test.each(articleResource.searchable)('when q matches %s, case-insensitively, then that article comes back', async (name) => {
      const marker = aMarker();
      const [match] = await givenArticles(svc.articles, [
        anArticleDoc({ [name]: `About ${marker.toUpperCase()} here` }),
        anArticleDoc(Object.fromEntries(articleResource.searchable.map((field) => [field, 'unrelated']))),
      ]);

      const res = await list({ q: marker });

      expect(res.body.count).toBe(1);
      expect(ids(res.body.rows)).toEqual(idsOf([match!]));
    });

    // Each decoy matches q read as a regex, and not q read as text.
    test.each([
      { special: '(a+)+$', decoy: 'xaaaa' },
      { special: '.*', decoy: 'xyz' },
      { special: '[x', decoy: 'x[' },
      { special: 'a|b', decoy: 'b' },
      { special: '\\d', decoy: 'x1' },
      { special: '^?', decoy: 'x' },
    ])('when q holds "$special", then its regex characters are literal text', async ({ special, decoy }) => {
      const marker = aMarker();
      const [literal] = await givenArticles(svc.articles, [
        anArticleDoc({ [MARKER_FIELD]: `${marker} x${special}y` }),
        anArticleDoc({ [MARKER_FIELD]: `${marker} ${decoy}` }),
      ]);

      const res = await list({ q: `${marker} x${special}` });

      expect(res.status).toBe(200);
      expect(res.body.count).toBe(1);
      expect(ids(res.body.rows)).toEqual(idsOf([literal!]));
    });

    test('when q is the catastrophic pattern alone, then it is matched as text and the response is normal', async () => {
      const marker = aMarker();
      const [target] = await givenArticles(svc.articles, [
        // Fits the 40 characters the generator asks of the marker field.
        anArticleDoc({ [MARKER_FIELD]: `${marker} (a+)+$ ${'a'.repeat(16)}!` }),
      ]);

      const res = await list({ q: '(a+)+$', fields: MARKER_FIELD });

      expect(res.status).toBe(200);
      expect(ids(res.body.rows)).toContain(target!._id.toHexString());
      expect(res.body.rows.every((row: Record<string, unknown>) => typeof row[MARKER_FIELD] === 'string')).toBe(true);
    });

    test('when q has a raw "?" in the URL, then it is searched as text and Link keeps it', async () => {
      const marker = aMarker();
      const [target] = await givenArticles(svc.articles, [anArticleDoc({ [MARKER_FIELD]: `${marker} why? because` })]);

      const res = await call(svc.app, 'get', `/articles?q=${marker}%20why?&limit=5`, LISTER);

      expect(res.status).toBe(200);
      expect(ids(res.body.rows)).toEqual(idsOf([target!]));
      expect(parseLinks(res.headers.link).first!.searchParams.get('q')).toBe(`${marker} why?`);
    });

    test('when q is empty, then it does not filter', async () => {
      await givenMarked(aMarker(), 2);

      const res = await list({ q: '', limit: 1 });

      expect(res.status).toBe(200);
      expect(res.body.rows).toHaveLength(1);
      expect(res.body.count).toBeGreaterThanOrEqual(2);
    });
  });

  describe('page and limit', () => {
    test('when limit=2, then pages hold 2 rows each, in order, without overlap, and Link has first/prev/next (a cursor)/last', async () => {
      const marker = aMarker();
      const newestFirst = idsOf(await givenMarked(marker, 5)).reverse();

      const pages = await Promise.all([1, 2, 3].map((page) => list({ q: marker, limit: 2, page })));

      expect(pages.map((res) => ids(res.body.rows))).toEqual([newestFirst.slice(0, 2), newestFirst.slice(2, 4), newestFirst.slice(4)]);
      expect(pages.map((res) => res.body.count)).toEqual([5, 5, 5]);
      const middle = parseLinks(pages[1]!.headers.link);
      expect(Object.fromEntries(Object.entries(middle).map(([rel, url]) => [rel, url.searchParams.get('page')]))).toEqual({
        first: '1',
        prev: '1',
        next: null,
        last: '3',
      });
      expect(middle.next!.searchParams.get('limit')).toBe('2');
      // The cursor of the next page starts where page 2 ended: it is page 3.
      const third = await call(svc.app, 'get', `${middle.next!.pathname}${middle.next!.search}`, LISTER);
      expect(ids(third.body.rows)).toEqual(newestFirst.slice(4));
      expect(Object.keys(parseLinks(pages[2]!.headers.link)).sort()).toEqual(['first', 'last', 'prev']);
    });

    test('when the page is past the end, then 200 with no rows, the right count, and prev pointing at the last page', async () => {
      const marker = aMarker();
      await givenMarked(marker, 3);

      const res = await list({ q: marker, limit: 2, page: 7 });

      expect(res.status).toBe(200);
      expect(res.body).toEqual({ count: 3, rows: [] });
      expect(res.headers['x-total-count']).toBe('3');
      const links = parseLinks(res.headers.link);
      expect(links.prev!.searchParams.get('page')).toBe('2');
      expect(links.last!.searchParams.get('page')).toBe('2');
      expect(links.next).toBeUndefined();
    });

    test('when limit=100 and limit=1, then both bounds are accepted', async () => {
      const marker = aMarker();
      await givenMarked(marker, 2);

      const [hundred, one] = await Promise.all([list({ q: marker, limit: 100 }), list({ q: marker, limit: 1 })]);

      expect(hundred.status).toBe(200);
      expect(hundred.body.rows).toHaveLength(2);
      expect(one.status).toBe(200);
      expect(one.body.rows).toHaveLength(1);
      expect(one.body.count).toBe(2);
    });
  });

  describe('sort', () => {
    (SORT_FIELD ? test : test.skip)(
      `when sort=${SORT_FIELD} and sort=-${SORT_FIELD}, then rows are ordered by it ascending and descending`,
      async () => {
        const marker = aMarker();
        const sortField = SORT_FIELD!;
        const docs = await givenArticles(
          svc.articles,
          ['b', 'c', 'a'].map((letter, i) =>
            anArticleDoc({
              [MARKER_FIELD]: `${marker} ${letter}`,
              [sortField]: `${letter} ${marker}`,
              createdAt: new Date(Date.now() - i * 1000),
            }),
          ),
        );
        const [b, c, a] = docs;

        const [asc, desc] = await Promise.all([list({ q: marker, sort: sortField }), list({ q: marker, sort: `-${sortField}` })]);

        expect(ids(asc.body.rows)).toEqual(idsOf([a!, b!, c!]));
        expect(ids(desc.body.rows)).toEqual(idsOf([c!, b!, a!]));
      },
    );

    test('when sort=createdAt, then oldest first; sort=-updatedAt, then most recently updated first', async () => {
      const marker = aMarker();
      const now = Date.now();
      const docs = await givenMarked(marker, 3, (i) => ({ updatedAt: new Date(now - i * 5000) }));

      const [byCreated, byUpdated] = await Promise.all([list({ q: marker, sort: 'createdAt' }), list({ q: marker, sort: '-updatedAt' })]);

      expect(ids(byCreated.body.rows)).toEqual(idsOf(docs));
      expect(ids(byUpdated.body.rows)).toEqual(idsOf(docs));
    });

    test('when sort names two fields, then the second breaks ties of the first', async () => {
      const marker = aMarker();
      const t = new Date(Date.now() - 10_000);
      const [x1, x2, y] = await givenArticles(svc.articles, [
        anArticleDoc({ [MARKER_FIELD]: marker, updatedAt: t, createdAt: new Date(t.getTime() - 1000) }),
        anArticleDoc({ [MARKER_FIELD]: marker, updatedAt: t, createdAt: t }),
        anArticleDoc({ [MARKER_FIELD]: marker, updatedAt: new Date(t.getTime() + 5000), createdAt: new Date(t.getTime() - 5000) }),
      ]);

      const res = await list({ q: marker, sort: 'updatedAt,-createdAt' });

      expect(ids(res.body.rows)).toEqual(idsOf([x2!, x1!, y!]));
    });
  });

  describe('fields', () => {
    test(`when fields=${MARKER_FIELD}, then rows hold only id and ${MARKER_FIELD}`, async () => {
      const marker = aMarker();
      const [doc] = await givenMarked(marker, 1);

      const res = await list({ q: marker, fields: MARKER_FIELD });

      expect(res.status).toBe(200);
      expect(res.body.rows).toEqual([{ id: doc!._id.toHexString(), [MARKER_FIELD]: doc![MARKER_FIELD] }]);
    });

    test('when fields=user,createdAt,updatedAt, then rows hold id and those fields, rendered as in the view', async () => {
      const marker = aMarker();
      const [doc] = await givenMarked(marker, 1);

      const res = await list({ q: marker, fields: 'user, createdAt,updatedAt' });

      const view = viewOf(doc!);
      expect(res.body.rows).toEqual([{ id: view.id, user: view.user, createdAt: view.createdAt, updatedAt: view.updatedAt }]);
    });

    test('when fields=id, then rows hold only the id', async () => {
      const marker = aMarker();
      const [doc] = await givenMarked(marker, 1);

      const res = await list({ q: marker, fields: 'id' });

      expect(res.body.rows).toEqual([{ id: doc!._id.toHexString() }]);
    });
  });

  describe('limits', () => {
    test.each([
      { case: 'limit=101', query: { limit: 101 }, param: 'limit' },
      { case: 'limit=0', query: { limit: 0 }, param: 'limit' },
      { case: 'limit=abc', query: { limit: 'abc' }, param: 'limit' },
      { case: 'page=0', query: { page: 0 }, param: 'page' },
      { case: 'page=1.5', query: { page: '1.5' }, param: 'page' },
      { case: 'page=101: past the fixed maximum', query: { page: 101 }, param: 'page' },
      { case: 'sort=password', query: { sort: 'password' }, param: 'sort' },
      ...(UNSORTABLE ? [{ case: `sort=-${UNSORTABLE} (not sortable)`, query: { sort: `-${UNSORTABLE}` }, param: 'sort' }] : []),
      { case: 'sort=', query: { sort: '' }, param: 'sort' },
      { case: 'fields=password', query: { fields: 'password' }, param: 'fields' },
      { case: `fields=${MARKER_FIELD},_id`, query: { fields: `${MARKER_FIELD},_id` }, param: 'fields' },
      { case: 'q of 101 characters', query: { q: 'q'.repeat(101) }, param: 'q' },
    ])('when $case, then 400 naming $param', async ({ query, param }) => {
      const res = await list(query);

      expect(res.status).toBe(400);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.body).toMatchObject({ code: 'validation_failed', param, message: expect.any(String) });
    });

    test('when q is repeated, then 400 naming q', async () => {
      const res = await call(svc.app, 'get', '/articles?q=a&q=b', LISTER);

      expect(res.status).toBe(400);
      expect(res.body.param).toBe('q');
    });

    test('when page=100, the fixed maximum, then 200', async () => {
      const res = await list({ q: aMarker(), page: 100 });

      expect(res.status).toBe(200);
      expect(res.body).toEqual({ count: 0, rows: [] });
    });

    test('when q is exactly 100 characters, then 200', async () => {
      const res = await list({ q: 'q'.repeat(100) });

      expect(res.status).toBe(200);
    });
  });

  describe('Link', () => {
    test('when the request carries access_token in the query, then no link repeats it', async () => {
      const marker = aMarker();
      await givenMarked(marker, 3);

      const res = await list({ q: marker, limit: 1, page: 2, access_token: 'secret-token-value' });

      expect(res.status).toBe(200);
      expect(res.headers.link).not.toContain('access_token');
      expect(res.headers.link).not.toContain('secret-token-value');
      expect(Object.keys(parseLinks(res.headers.link)).sort()).toEqual(['first', 'last', 'next', 'prev']);
    });

    test('when sort and fields are given, then links keep them', async () => {
      const marker = aMarker();
      await givenMarked(marker, 3);

      const res = await list({ q: marker, limit: 1, sort: '-updatedAt', fields: MARKER_FIELD });

      const next = parseLinks(res.headers.link).next!;
      expect(next.searchParams.get('sort')).toBe('-updatedAt');
      expect(next.searchParams.get('fields')).toBe(MARKER_FIELD);
      expect(next.searchParams.get('q')).toBe(marker);
    });
  });
});
