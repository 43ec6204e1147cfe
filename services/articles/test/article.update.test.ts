import { ObjectId } from 'mongodb';
import {
  ACCESS,
  aMarker,
  anAdmin,
  anArticle,
  aUser,
  aValue,
  callerFor,
  badValues,
  FIELD_NAMES,
  givenArticle,
  MARKER_FIELD,
  MASTER,
  shownBody,
  stored as asStored,
  storedBody,
  viewOf,
  type ArticleDoc,
  RULED,
} from './support/builders';

const [FIRST, ...OTHERS] = FIELD_NAMES as [string, ...string[]];
const level = ACCESS.update;
import { call, startArticles, type TestService } from './support/harness';

// PUT and PATCH behave the same: both are partial updates (omitted fields stay).
(RULED.update || RULED.read ? describe.skip : describe).each(['put', 'patch'] as const)('%s /articles/:id', (method) => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startArticles();
  });
  afterAll(async () => {
    await svc.stop();
  });

  const update = (article: ArticleDoc | string, principal?: Parameters<typeof call>[3]) =>
    call(svc.app, method, `/articles/${typeof article === 'string' ? article : article._id.toHexString()}`, principal);
  const stored = (article: ArticleDoc) => svc.articles.findOne({ _id: article._id });

  test('when the owner changes every field, then 200 with the view and a new updatedAt; createdAt and owner stay', async () => {
    const owner = aUser();
    const article = await givenArticle(svc.articles, { userId: owner.id });
    const before = Date.now();
    const changes = anArticle({ [MARKER_FIELD]: `New ${aMarker()}` });

    const res = await update(article, callerFor(level, owner)).send(changes);

    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ...viewOf(article),
      ...shownBody(changes),
      updatedAt: expect.any(String),
    });
    expect(new Date(res.body.updatedAt).getTime()).toBeGreaterThanOrEqual(before);
    const doc = await stored(article);
    expect(doc).toMatchObject({ ...storedBody(changes), userId: owner.id, createdAt: article.createdAt });
    expect(doc!.updatedAt.toISOString()).toBe(res.body.updatedAt);
  });

  test(`when only ${FIRST} is sent, then the other fields stay as they were`, async () => {
    const owner = aUser();
    const article = await givenArticle(svc.articles, { userId: owner.id });
    const value = aValue(FIRST);

    const res = await update(article, callerFor(level, owner)).send({ [FIRST]: value });

    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...viewOf(article), ...shownBody({ [FIRST]: value }), updatedAt: expect.any(String) });
    const { updatedAt: _u, ...unchanged } = { ...article, [FIRST]: asStored(FIRST, value) };
    expect(await stored(article)).toMatchObject(unchanged);
  });

  test(`when only ${MARKER_FIELD} is sent as a form, then it changes and the others stay`, async () => {
    const owner = aUser();
    const article = await givenArticle(svc.articles, { userId: owner.id });
    const marker = aMarker();

    const res = await update(article, callerFor(level, owner)).type('form').send(`${MARKER_FIELD}=only+${marker}`);

    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...viewOf(article), [MARKER_FIELD]: `only ${marker}`, updatedAt: expect.any(String) });
    expect(await stored(article)).toMatchObject({ ...article, [MARKER_FIELD]: `only ${marker}`, updatedAt: expect.any(Date) });
  });

  test('when an admin changes another user’s article, then 200 and the owner stays the same', async () => {
    const article = await givenArticle(svc.articles);

    const res = await update(article, anAdmin()).send({ [MARKER_FIELD]: 'edited by an admin' });

    expect(res.status).toBe(200);
    expect(res.body.user).toEqual({ id: article.userId });
    expect(await stored(article)).toMatchObject({ [MARKER_FIELD]: 'edited by an admin', userId: article.userId });
  });

  test('when the body names another owner, id or timestamps, then they are ignored', async () => {
    const owner = aUser();
    const article = await givenArticle(svc.articles, { userId: owner.id });
    const other = aUser();

    const res = await update(article, callerFor(level, owner)).send({
      [MARKER_FIELD]: 'kept mine',
      user: { id: other.id },
      userId: other.id,
      id: new ObjectId().toHexString(),
      createdAt: '2000-01-01T00:00:00.000Z',
      updatedAt: '2000-01-01T00:00:00.000Z',
    });

    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: article._id.toHexString(), user: { id: owner.id }, createdAt: article.createdAt.toISOString() });
    expect(res.body.updatedAt).not.toBe('2000-01-01T00:00:00.000Z');
    expect(await stored(article)).toMatchObject({ [MARKER_FIELD]: 'kept mine', userId: owner.id, createdAt: article.createdAt });
  });

  describe('refused', () => {
    (level === 'user' ? test.skip : test)('when another (plain) user updates, then 403 and nothing changes', async () => {
      const article = await givenArticle(svc.articles);

      const res = await update(article, aUser()).send({ [MARKER_FIELD]: 'hijacked' });

      expect(res.status).toBe(403);
      expect(res.body.code).toBe(level === 'owner' ? 'not_owner' : 'forbidden');
      expect(await stored(article)).toEqual(article);
    });

    test('when there is no principal, then 401 and nothing changes', async () => {
      const article = await givenArticle(svc.articles);

      const res = await update(article).send({ [MARKER_FIELD]: 'anonymous' });

      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Bearer realm="restgate"');
      expect(await stored(article)).toEqual(article);
    });

    test('when the caller is the master key, then 403 and nothing changes', async () => {
      const article = await givenArticle(svc.articles);

      const res = await update(article, MASTER).send({ [MARKER_FIELD]: 'master' });

      expect(res.status).toBe(403);
      expect(await stored(article)).toEqual(article);
    });
  });

  test.each([
    { case: 'unknown', id: () => new ObjectId().toHexString() },
    { case: 'malformed', id: () => 'xyz' },
  ])('when the id is $case, then 404 and nothing is written', async ({ id }) => {
    const user = aUser();
    const marker = aMarker();

    const res = await update(id(), callerFor(level, user)).send({ [MARKER_FIELD]: marker });

    expect(res.status).toBe(404);
    expect(res.body.code).toBe('article_not_found');
    expect(await svc.articles.countDocuments({ [MARKER_FIELD]: marker })).toBe(0);
  });

  describe('validation', () => {
    test.each([
      ...badValues().map(({ case: what, param, value }) => ({ case: what, body: { [param]: value }, param })),
      { case: 'the body has no field to change', body: {}, param: 'body' },
      { case: 'the body has only unknown fields', body: { userId: 'x' }, param: 'body' },
    ])('when $case (JSON), then 400 naming $param, and nothing changes', async ({ body, param }) => {
      const owner = aUser();
      const article = await givenArticle(svc.articles, { userId: owner.id });

      const res = await update(article, callerFor(level, owner)).send(body);

      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'validation_failed', param, message: expect.any(String) });
      expect(await stored(article)).toEqual(article);
    });

    test(`when a form sends ${FIRST}[$ne]=x, then it is a key of its own: 400 (nothing to change) and nothing changes`, async () => {
      const owner = aUser();
      const article = await givenArticle(svc.articles, { userId: owner.id });

      const res = await update(article, callerFor(level, owner)).type('form').send(`${FIRST}[$ne]=x`);

      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ param: 'body', message: `send at least one of ${[FIRST, ...OTHERS].join(', ')}` });
      expect(await stored(article)).toEqual(article);
    });
  });
});
