import request from 'supertest';
import { createLogger } from '@restgate/shared';
import { createMongo } from '@restgate/shared/data';
import { TEST_PRINCIPAL_SECRET, uniqueDbName } from '@restgate/shared/testing';
import { createArticles } from '../src/app';
import { createArticleRepository } from '../src/data/article.repository';
import { ACCESS, aMarker, anArticle, aUser, callerFor, MARKER_FIELD, MASTER } from './support/builders';
import { call, startArticles, type TestService } from './support/harness';

describe('articles service', () => {
  describe('with its database up', () => {
    let svc: TestService;
    beforeAll(async () => {
      svc = await startArticles();
    });
    afterAll(async () => {
      await svc.stop();
    });

    test('when /health and /ready are asked, then 200, and ready names mongodb as up', async () => {
      const [health, ready] = await Promise.all([request(svc.app).get('/health'), request(svc.app).get('/ready')]);

      expect(health.status).toBe(200);
      expect(ready.status).toBe(200);
      expect(ready.body).toEqual({ status: 'ready', checks: { mongodb: 'up' } });
    });

    test('when the indexes are listed, then the default sort and the owner lookup are indexed', async () => {
      const keys = (await svc.articles.indexes()).map((index) => index.key);

      expect(keys).toEqual(
        expect.arrayContaining([
          { createdAt: -1, _id: -1 },
          { userId: 1, createdAt: -1 },
        ]),
      );
    });

    test('when the indexes are ensured again (a restart on existing data), then it succeeds and changes nothing', async () => {
      const before = await svc.articles.indexes();

      await createArticleRepository(svc.articles.db, TEST_PRINCIPAL_SECRET).ensureIndexes();

      expect(await svc.articles.indexes()).toEqual(before);
    });

    test('when a method the path does not have is used, then 405 with Allow', async () => {
      const res = await call(svc.app, 'put', '/articles', aUser()).send(anArticle());

      expect(res.status).toBe(405);
      expect(res.headers.allow).toBe('POST, GET, HEAD');
    });
  });

  describe('with ROUTE_POLICY overrides', () => {
    let svc: TestService;
    beforeAll(async () => {
      svc = await startArticles({ ROUTE_POLICY: 'GET /articles=user; POST /articles=public; DELETE /articles/:id=admin' });
    });
    afterAll(async () => {
      await svc.stop();
    });

    test('when GET /articles is set to user, then an anonymous listing is 401', async () => {
      const res = await call(svc.app, 'get', '/articles');

      expect(res.status).toBe(401);
    });

    test('when POST /articles is opened to public, then an anonymous caller still cannot create (an article needs an owner): 401, nothing written', async () => {
      const marker = aMarker();

      const anonymous = await call(svc.app, 'post', '/articles').send(anArticle({ [MARKER_FIELD]: marker }));
      const master = await call(svc.app, 'post', '/articles', MASTER).send(anArticle({ [MARKER_FIELD]: marker }));

      expect(anonymous.status).toBe(401);
      expect(master.status).toBe(403);
      expect(await svc.articles.countDocuments({ [MARKER_FIELD]: marker })).toBe(0);
    });

    (ACCESS.create === 'user' ? test : test.skip)(
      'when DELETE /articles/:id is set to admin, then the owner (a plain user) gets 403',
      async () => {
        const owner = aUser();
        const created = await call(svc.app, 'post', '/articles', owner).send(anArticle());

        const res = await call(svc.app, 'delete', `/articles/${created.body.id}`, owner);

        expect(created.status).toBe(201);
        expect(res.status).toBe(403);
        expect(await svc.articles.countDocuments({ userId: owner.id })).toBe(1);
      },
    );
  });

  describe('with its database down', () => {
    // Nothing listens on port 9 (discard) on loopback: the driver fails server selection fast.
    const mongo = createMongo('mongodb://127.0.0.1:9', uniqueDbName('articles'), createLogger({ name: 'articles-test', level: 'silent' }));
    const { app } = createArticles({
      config: { PRINCIPAL_SECRET: TEST_PRINCIPAL_SECRET, BODY_LIMIT: '100kb', ROUTE_POLICY: '' },
      logger: createLogger({ name: 'articles-test', level: 'silent' }),
      mongo,
    });
    afterAll(async () => {
      await mongo.close();
    });

    test('when /ready is asked, then 503 naming mongodb as down', async () => {
      const res = await request(app).get('/ready');

      expect(res.status).toBe(503);
      expect(res.body).toEqual({ status: 'unready', checks: { mongodb: 'down' } });
    });

    test('when a listing is asked, then 503 problem+json without driver details', async () => {
      const res = await call(app, 'get', '/articles', callerFor(ACCESS.list));

      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ code: 'service_unavailable', status: 503 });
      expect(JSON.stringify(res.body)).not.toMatch(/127\.0\.0\.1|Mongo|ECONNREFUSED/);
    });
  });
});
