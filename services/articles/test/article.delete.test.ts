import { ObjectId } from 'mongodb';
import { ACCESS, anAdmin, aUser, callerFor, givenArticle, MASTER, describeUnless } from './support/builders';

const level = ACCESS.delete;
import { call, startArticles, type TestService } from './support/harness';

describeUnless('read', 'delete')('DELETE /articles/:id', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startArticles();
  });
  afterAll(async () => {
    await svc.stop();
  });

  const exists = async (_id: ObjectId) => (await svc.articles.countDocuments({ _id })) === 1;

  test(`when the owner (or, at level ${level}, a caller it lets in) deletes, then 204 with no body, and the article is gone`, async () => {
    const owner = aUser();
    const article = await givenArticle(svc.articles, { userId: owner.id });

    const res = await call(svc.app, 'delete', `/articles/${article._id.toHexString()}`, callerFor(level, owner));

    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect(await exists(article._id)).toBe(false);
  });

  test('when an admin deletes another user’s article, then 204 and it is gone', async () => {
    const article = await givenArticle(svc.articles);

    const res = await call(svc.app, 'delete', `/articles/${article._id.toHexString()}`, anAdmin());

    expect(res.status).toBe(204);
    expect(await exists(article._id)).toBe(false);
  });

  test('when it was already deleted, then 404', async () => {
    const owner = aUser();
    const article = await givenArticle(svc.articles, { userId: owner.id });
    const path = `/articles/${article._id.toHexString()}`;
    const deleter = callerFor(level, owner);
    await call(svc.app, 'delete', path, deleter).expect(204);

    const res = await call(svc.app, 'delete', path, deleter);

    expect(res.status).toBe(404);
    expect(res.body.code).toBe('article_not_found');
  });

  describe('refused', () => {
    (level === 'user' ? test.skip : test)('when another (plain) user deletes, then 403 and the article stays', async () => {
      const article = await givenArticle(svc.articles);

      const res = await call(svc.app, 'delete', `/articles/${article._id.toHexString()}`, aUser());

      expect(res.status).toBe(403);
      expect(res.body.code).toBe(level === 'owner' ? 'not_owner' : 'forbidden');
      expect(await exists(article._id)).toBe(true);
    });

    test('when there is no principal, then 401 with WWW-Authenticate and the article stays', async () => {
      const article = await givenArticle(svc.articles);

      const res = await call(svc.app, 'delete', `/articles/${article._id.toHexString()}`);

      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Bearer realm="restgate"');
      expect(await exists(article._id)).toBe(true);
    });

    test('when the caller is the master key, then 403 and the article stays', async () => {
      const article = await givenArticle(svc.articles);

      const res = await call(svc.app, 'delete', `/articles/${article._id.toHexString()}`, MASTER);

      expect(res.status).toBe(403);
      expect(await exists(article._id)).toBe(true);
    });
  });

  test.each([
    { case: 'unknown', id: () => new ObjectId().toHexString() },
    { case: 'malformed', id: () => 'nope' },
  ])('when the id is $case, then 404', async ({ id }) => {
    const res = await call(svc.app, 'delete', `/articles/${id()}`, callerFor(level));

    expect(res.status).toBe(404);
    expect(res.body.code).toBe('article_not_found');
  });
});
