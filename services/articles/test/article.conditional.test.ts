import { ObjectId } from 'mongodb';
import { anAdmin, givenArticle, MARKER_FIELD, describeUnless } from './support/builders';
import { call, startArticles, type TestService } from './support/harness';

/** An admin passes every level a generated resource may give its reads and writes. */
const ADMIN = anAdmin();

describeUnless(
  'read',
  'update',
  'delete',
)('conditional requests on /articles/:id', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startArticles();
  });
  afterAll(async () => {
    await svc.stop();
  });

  const path = (id: ObjectId) => `/articles/${id.toHexString()}`;
  const read = (id: ObjectId, headers: Record<string, string> = {}) => call(svc.app, 'get', path(id), ADMIN).set(headers);
  const change = (method: 'put' | 'patch', id: ObjectId, ifMatch?: string) => {
    const req = call(svc.app, method, path(id), ADMIN).send({ [MARKER_FIELD]: `changed ${new ObjectId().toHexString()}` });
    return ifMatch === undefined ? req : req.set('If-Match', ifMatch);
  };

  test('when an article is read, then a strong ETag; If-None-Match with it is 304, and after a change the old one is 200 with a new ETag', async () => {
    const doc = await givenArticle(svc.articles);

    const first = await read(doc._id);
    const again = await read(doc._id, { 'If-None-Match': first.headers.etag! });
    const changed = await change('patch', doc._id);
    const stale = await read(doc._id, { 'If-None-Match': first.headers.etag! });

    expect(first.status).toBe(200);
    expect(first.headers.etag).toMatch(/^"[^"]+"$/);
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    expect(changed.headers.etag).not.toBe(first.headers.etag);
    expect(stale.status).toBe(200);
    expect(stale.headers.etag).toBe(changed.headers.etag);
  });

  test.each(['put', 'patch'] as const)(
    'when %s names a stale If-Match, then 412 precondition_failed and nothing changes',
    async (method) => {
      const doc = await givenArticle(svc.articles);
      const { etag } = (await read(doc._id)).headers;
      await change(method, doc._id, etag);

      const res = await change(method, doc._id, etag);

      expect(res.status).toBe(412);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.body).toMatchObject({ code: 'precondition_failed', status: 412 });
      expect((await svc.articles.findOne({ _id: doc._id }))!.version).toBe(1);
    },
  );

  test.each(['put', 'patch'] as const)('when %s names the current ETag (or *), then 200 with the next ETag', async (method) => {
    const doc = await givenArticle(svc.articles);
    const { etag } = (await read(doc._id)).headers;

    const res = await change(method, doc._id, etag);
    const star = await change(method, doc._id, '*');

    expect(res.status).toBe(200);
    expect(res.headers.etag).not.toBe(etag);
    expect(star.status).toBe(200);
    expect((await read(doc._id)).headers.etag).toBe(star.headers.etag);
  });

  test('when DELETE names a stale If-Match, then 412 and the article stays; with the current one, 204', async () => {
    const doc = await givenArticle(svc.articles);
    const stale = (await read(doc._id)).headers.etag!;
    const current = (await change('patch', doc._id)).headers.etag!;

    const refused = await call(svc.app, 'delete', path(doc._id), ADMIN).set('If-Match', stale);
    const kept = await svc.articles.findOne({ _id: doc._id });
    const deleted = await call(svc.app, 'delete', path(doc._id), ADMIN).set('If-Match', current);

    expect(refused.status).toBe(412);
    expect(kept).not.toBeNull();
    expect(deleted.status).toBe(204);
    expect(await svc.articles.findOne({ _id: doc._id })).toBeNull();
  });

  test('when If-Match is weak or names another article, then 412', async () => {
    const [doc, other] = [await givenArticle(svc.articles), await givenArticle(svc.articles)];
    const { etag } = (await read(doc._id)).headers;

    expect((await change('patch', doc._id, `W/${etag}`)).status).toBe(412);
    expect((await change('patch', other._id, etag)).status).toBe(412);
  });

  test('when an article was stored before versions, then it has an ETag and conditional writes work on it', async () => {
    const doc = await givenArticle(svc.articles);
    await svc.articles.updateOne({ _id: doc._id }, { $unset: { version: '' } });
    const { etag } = (await read(doc._id)).headers;

    const res = await change('patch', doc._id, etag);

    expect(res.status).toBe(200);
    expect((await change('patch', doc._id, etag)).status).toBe(412);
  });

  test('when 8 writes race with the same If-Match, then exactly one wins (the version claim has one winner on FerretDB too)', async () => {
    const doc = await givenArticle(svc.articles);
    const { etag } = (await read(doc._id)).headers;

    const answers = await Promise.all(Array.from({ length: 8 }, () => change('patch', doc._id, etag)));

    const winners = answers.filter((res) => res.status === 200).length;
    expect(answers.every((res) => [200, 412].includes(res.status))).toBe(true);
    expect(winners).toBe(1);
    process.stderr.write(
      `[conditional] 8 racing PATCHes with one If-Match: ${winners} won, version now ${(await svc.articles.findOne({ _id: doc._id }))!.version}\n`,
    );
  });
});

describe('racing conditional writes on the database itself', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startArticles();
  });
  afterAll(async () => {
    await svc.stop();
  });

  test('when 20 updates filtered on the same version race, 10 times over, then the winners of each round are counted', async () => {
    const rounds: number[] = [];
    for (let round = 0; round < 10; round++) {
      const doc = await givenArticle(svc.articles, { version: 1 } as never);
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          svc.articles.findOneAndUpdate({ _id: doc._id, version: 1 }, { $set: { [MARKER_FIELD]: `w${i}` }, $inc: { version: 1 } } as never),
        ),
      );
      rounds.push(results.filter(Boolean).length);
    }
    process.stderr.write(`[conditional] winners per round of 20 racing version-filtered updates: ${rounds.join(' ')}\n`);
    expect(rounds.every((n) => n >= 1)).toBe(true);
  });
});
