import { ACCESS, aMarker, anArticleDoc, callerFor, givenArticles, MARKER_FIELD, type ArticleDoc, describeUnless } from './support/builders';
import { call, parseLinks, startArticles, type TestService } from './support/harness';

const LISTER = callerFor(ACCESS.list);

describeUnless('list')('GET /articles with after and count', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startArticles();
  });
  afterAll(async () => {
    await svc.stop();
  });

  const get = (url: string) => call(svc.app, 'get', url, LISTER);
  const list = (query: Record<string, string | number>) => call(svc.app, 'get', '/articles', LISTER).query(query);
  const idsOf = (docs: ArticleDoc[]) => docs.map((doc) => doc._id.toHexString());
  const nextOf = (res: { headers: Record<string, string> }) => {
    const next = parseLinks(res.headers.link).next;
    return next && `${next.pathname}${next.search}`;
  };

  /** `n` marked articles, one second apart, some sharing a timestamp (the id breaks ties). */
  async function givenMarked(marker: string, n: number): Promise<ArticleDoc[]> {
    const start = Date.now() - 3_600_000;
    return givenArticles(
      svc.articles,
      Array.from({ length: n }, (_, i) =>
        anArticleDoc({ [MARKER_FIELD]: `${marker} #${i}`, createdAt: new Date(start + Math.floor(i / 2) * 1000) }),
      ),
    );
  }

  test('when a walk follows next links while rows are inserted and deleted between pages, then every original row comes once', async () => {
    const marker = aMarker();
    const docs = await givenMarked(marker, 9);
    const deleted = docs[3]!;
    const seen: string[] = [];

    let url: string | undefined = `/articles?q=${marker}&limit=2`;
    for (let page = 0; url && page < 20; page++) {
      const res = await get(url);
      expect(res.status).toBe(200);
      seen.push(...res.body.rows.map((row: { id: string }) => row.id));
      // Newer rows (they sort first) and older ones (they sort last) arrive during the walk.
      await givenArticles(svc.articles, [
        anArticleDoc({ [MARKER_FIELD]: `${marker} new`, createdAt: new Date() }),
        anArticleDoc({ [MARKER_FIELD]: `${marker} old`, createdAt: new Date(0) }),
      ]);
      if (page === 0) await svc.articles.deleteOne({ _id: deleted._id });
      url = nextOf(res);
    }

    const original = idsOf(docs).filter((id) => id !== deleted._id.toHexString());
    // Every original row once, in order; rows inserted meanwhile may come (the older ones do) or not.
    expect(seen.filter((id) => idsOf(docs).includes(id))).toEqual([...original].reverse());
    expect(new Set(seen).size).toBe(seen.length);
  });

  test('when count=false, then the body has no count, no X-Total-Count, and Link has next but no last', async () => {
    const marker = aMarker();
    await givenMarked(marker, 3);

    const res = await list({ q: marker, limit: 2, count: 'false' });

    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['rows']);
    expect(res.body.rows).toHaveLength(2);
    expect(res.headers['x-total-count']).toBeUndefined();
    const links = parseLinks(res.headers.link);
    expect(Object.keys(links).sort()).toEqual(['first', 'next']);
    expect(links.next!.searchParams.get('count')).toBe('false');
    const rest = await get(nextOf(res)!);
    expect(rest.body.rows).toHaveLength(1);
    expect(parseLinks(rest.headers.link).next).toBeUndefined();
  });

  test('when a cursor is forged, altered or used with another sort or filter, then 400 naming after', async () => {
    const marker = aMarker();
    await givenMarked(marker, 3);
    const next = parseLinks((await list({ q: marker, limit: 1 })).headers.link).next!;
    const after = next.searchParams.get('after')!;
    const [payload, mac] = after.split('.') as [string, string];

    const answers = await Promise.all([
      list({ q: marker, limit: 1, after: `${payload}x.${mac}` }),
      list({ q: marker, limit: 1, after: `${payload}.${'A'.repeat(43)}` }),
      list({ q: marker, limit: 1, after, sort: 'createdAt' }),
      list({ q: `${marker}x`, limit: 1, after }),
      list({ q: marker, limit: 1, after, 'createdAt[gt]': '2020-01-01' }),
      list({ q: marker, limit: 1, after, page: 2 }),
      list({ q: marker, after: 'garbage' }),
    ]);

    for (const res of answers) {
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'validation_failed', param: 'after' });
    }
    expect((await list({ q: marker, limit: 1, after })).status).toBe(200);
  });

  test('when a page is past the last, counted or not, then no next link', async () => {
    const marker = aMarker();
    await givenMarked(marker, 2);

    const res = await list({ q: marker, limit: 2 });

    expect(res.body.rows).toHaveLength(2);
    expect(parseLinks(res.headers.link).next).toBeUndefined();
  });
});
