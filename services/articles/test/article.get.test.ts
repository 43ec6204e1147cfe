import { ObjectId } from 'mongodb';
import { ACCESS, aUser, callerFor, givenArticle, MASTER, viewOf, describeUnless } from './support/builders';
import { call, startArticles, type TestService } from './support/harness';

const level = ACCESS.read;

describeUnless('read')('GET /articles/:id', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startArticles();
  });
  afterAll(async () => {
    await svc.stop();
  });

  test(`when a caller the ${level} level lets in asks for an existing article, then 200 with its view`, async () => {
    const owner = aUser();
    const article = await givenArticle(svc.articles, { userId: owner.id });

    const res = await call(svc.app, 'get', `/articles/${article._id.toHexString()}`, callerFor(level, owner));

    expect(res.status).toBe(200);
    expect(res.body).toEqual(viewOf(article));
  });

  test.each(['/articles/%ZZ', '/articles/%E0%A4%A'])(
    'when the id is a malformed %%-escape (%s), then 404 route_not_found, not a 500',
    async (path) => {
      const res = await call(svc.app, 'get', path, aUser());

      expect(res.status).toBe(404);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.body).toMatchObject({ status: 404, code: 'route_not_found' });
    },
  );

  (['public', 'user'].includes(level) ? test : test.skip)('when a user (not the owner) asks, then 200 with the same view', async () => {
    const article = await givenArticle(svc.articles);
    const path = `/articles/${article._id.toHexString()}`;

    const res = await call(svc.app, 'get', path, aUser());

    expect(res.status).toBe(200);
    expect(res.body).toEqual(viewOf(article));
  });

  (level === 'public' ? test.skip : test)(`when the caller is anonymous (the level is ${level}), then 401`, async () => {
    const article = await givenArticle(svc.articles);

    const res = await call(svc.app, 'get', `/articles/${article._id.toHexString()}`);

    expect(res.status).toBe(401);
    expect(res.body).not.toHaveProperty('id');
  });

  (level === 'owner' ? test : test.skip)('when another user or the master key asks, then 403 and no view', async () => {
    const article = await givenArticle(svc.articles);
    const path = `/articles/${article._id.toHexString()}`;

    const [other, master] = [await call(svc.app, 'get', path, aUser()), await call(svc.app, 'get', path, MASTER)];

    expect([other.status, master.status]).toEqual([403, 403]);
    expect(other.body.code).toBe('not_owner');
  });

  test.each([
    { case: 'unknown', id: () => new ObjectId().toHexString() },
    { case: 'malformed', id: () => 'not-an-id' },
    { case: 'almost an id (23 hex)', id: () => new ObjectId().toHexString().slice(1) },
    { case: 'an operator-looking string', id: () => '{"$ne":null}' },
  ])('when the id is $case, then 404 article_not_found as problem+json', async ({ id }) => {
    const res = await call(svc.app, 'get', `/articles/${encodeURIComponent(id())}`, callerFor(level));

    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ status: 404, code: 'article_not_found' });
  });
});
