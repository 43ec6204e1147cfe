import { ObjectId } from 'mongodb';
import { aMarker, anAdmin, aUser, givenArticle, MASTER, type ArticleDoc } from './support/builders';
import { call, startArticles, type TestService } from './support/harness';

// PUT and PATCH behave the same: both are partial updates: omitted fields stay as they are.
describe.each(['put', 'patch'] as const)('%s /articles/:id', (method) => {
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

  test('when the owner changes title and content, then 200 with the view and a new updatedAt; createdAt and owner stay', async () => {
    const owner = aUser();
    const article = await givenArticle(svc.articles, { userId: owner.id });
    const before = Date.now();
    const title = `New ${aMarker()}`;

    const res = await update(article, owner).send({ title, content: 'new content' });

    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: article._id.toHexString(),
      title,
      content: 'new content',
      user: { id: owner.id },
      createdAt: article.createdAt.toISOString(),
      updatedAt: expect.any(String),
    });
    expect(new Date(res.body.updatedAt).getTime()).toBeGreaterThanOrEqual(before);
    const doc = await stored(article);
    expect(doc).toMatchObject({ title, content: 'new content', userId: owner.id, createdAt: article.createdAt });
    expect(doc!.updatedAt.toISOString()).toBe(res.body.updatedAt);
  });

  test('when only title is sent, then content stays as it was', async () => {
    const owner = aUser();
    const article = await givenArticle(svc.articles, { userId: owner.id });

    const res = await update(article, owner).send({ title: 'only the title' });

    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ title: 'only the title', content: article.content });
    expect(await stored(article)).toMatchObject({ title: 'only the title', content: article.content });
  });

  test('when only content is sent (as a form), then title stays as it was', async () => {
    const owner = aUser();
    const article = await givenArticle(svc.articles, { userId: owner.id });

    const res = await update(article, owner).type('form').send('content=only+the+content');

    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ title: article.title, content: 'only the content' });
    expect(await stored(article)).toMatchObject({ title: article.title, content: 'only the content' });
  });

  test('when content is set to empty, then it is stored empty', async () => {
    const owner = aUser();
    const article = await givenArticle(svc.articles, { userId: owner.id });

    const res = await update(article, owner).send({ content: '' });

    expect(res.status).toBe(200);
    expect((await stored(article))?.content).toBe('');
  });

  test('when an admin changes another user’s article, then 200 and the owner stays the same', async () => {
    const article = await givenArticle(svc.articles);

    const res = await update(article, anAdmin()).send({ title: 'edited by an admin' });

    expect(res.status).toBe(200);
    expect(res.body.user).toEqual({ id: article.userId });
    expect(await stored(article)).toMatchObject({ title: 'edited by an admin', userId: article.userId });
  });

  test('when the body names another owner, id or timestamps, then they are ignored', async () => {
    const owner = aUser();
    const article = await givenArticle(svc.articles, { userId: owner.id });
    const other = aUser();

    const res = await update(article, owner).send({
      title: 'kept mine',
      user: { id: other.id },
      userId: other.id,
      id: new ObjectId().toHexString(),
      createdAt: '2000-01-01T00:00:00.000Z',
      updatedAt: '2000-01-01T00:00:00.000Z',
    });

    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: article._id.toHexString(), user: { id: owner.id }, createdAt: article.createdAt.toISOString() });
    expect(res.body.updatedAt).not.toBe('2000-01-01T00:00:00.000Z');
    expect(await stored(article)).toMatchObject({ title: 'kept mine', userId: owner.id, createdAt: article.createdAt });
  });

  describe('refused', () => {
    test('when another user updates, then 403 not_owner and nothing changes', async () => {
      const article = await givenArticle(svc.articles);

      const res = await update(article, aUser()).send({ title: 'hijacked' });

      expect(res.status).toBe(403);
      expect(res.body.code).toBe('not_owner');
      expect(await stored(article)).toEqual(article);
    });

    test('when there is no principal, then 401 and nothing changes', async () => {
      const article = await givenArticle(svc.articles);

      const res = await update(article).send({ title: 'anonymous' });

      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Bearer realm="restgate"');
      expect(await stored(article)).toEqual(article);
    });

    test('when the caller is the master key, then 403 and nothing changes', async () => {
      const article = await givenArticle(svc.articles);

      const res = await update(article, MASTER).send({ title: 'master' });

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

    const res = await update(id(), user).send({ title: marker });

    expect(res.status).toBe(404);
    expect(res.body.code).toBe('article_not_found');
    expect(await svc.articles.countDocuments({ title: marker })).toBe(0);
  });

  describe('validation', () => {
    test.each([
      { case: 'title is blank', body: { title: ' ' }, param: 'title' },
      { case: 'title has 201 characters', body: { title: 't'.repeat(201) }, param: 'title' },
      { case: 'title is an operator object', body: { title: { $ne: 1 } }, param: 'title' },
      { case: 'title is null', body: { title: null }, param: 'title' },
      { case: 'content has 100 001 characters', body: { content: 'c'.repeat(100_001) }, param: 'content' },
      { case: 'content is a number', body: { content: 1 }, param: 'content' },
      { case: 'the body has no field to change', body: {}, param: 'body' },
      { case: 'the body has only unknown fields', body: { userId: 'x' }, param: 'body' },
    ])('when $case (JSON), then 400 naming $param, and nothing changes', async ({ body, param }) => {
      const owner = aUser();
      const article = await givenArticle(svc.articles, { userId: owner.id });

      const res = await update(article, owner).send(body);

      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'validation_failed', param, message: expect.any(String) });
      expect(await stored(article)).toEqual(article);
    });

    test('when a form sends title[$ne]=x, then it is a key of its own: 400 (nothing to change) and nothing changes', async () => {
      const owner = aUser();
      const article = await givenArticle(svc.articles, { userId: owner.id });

      const res = await update(article, owner).type('form').send('title[$ne]=x');

      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ param: 'body', message: 'send at least one of title, content' });
      expect(await stored(article)).toEqual(article);
    });
  });
});
