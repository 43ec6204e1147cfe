import { ObjectId } from 'mongodb';
import { aUser, givenArticle, viewOf } from './support/builders';
import { call, startArticles, type TestService } from './support/harness';

describe('GET /articles/:id', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startArticles();
  });
  afterAll(async () => {
    await svc.stop();
  });

  test('when anyone asks for an existing article, then 200 with its view', async () => {
    const article = await givenArticle(svc.articles);

    const res = await call(svc.app, 'get', `/articles/${article._id.toHexString()}`);

    expect(res.status).toBe(200);
    expect(res.body).toEqual(viewOf(article));
  });

  test('when a user (not the owner) asks, then 200 with the same view', async () => {
    const article = await givenArticle(svc.articles);
    const path = `/articles/${article._id.toHexString()}`;

    const res = await call(svc.app, 'get', path, aUser());

    expect(res.status).toBe(200);
    expect(res.body).toEqual(viewOf(article));
  });

  test.each([
    { case: 'unknown', id: () => new ObjectId().toHexString() },
    { case: 'malformed', id: () => 'not-an-id' },
    { case: 'almost an id (23 hex)', id: () => new ObjectId().toHexString().slice(1) },
    { case: 'an operator-looking string', id: () => '{"$ne":null}' },
  ])('when the id is $case, then 404 article_not_found as problem+json', async ({ id }) => {
    const res = await call(svc.app, 'get', `/articles/${encodeURIComponent(id())}`);

    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ status: 404, code: 'article_not_found' });
  });
});
