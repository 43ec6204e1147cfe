/**
 * A route's level is written once, in its service's spec (src/api.ts): changing it there changes
 * it for the gateway's policy, for the service's own access check, and in /openapi.json alike.
 * The articles service runs in-process on a real database; the gateway's table is derived from
 * the same specs, as start.ts derives it from their build.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import request from 'supertest';
import { anAdminToken, anObjectId, aUserToken } from './support/tokens';
import { startGateway, type TestGateway } from './support/gateway';
import { ROUTED_SERVICES } from './support/routes';
import { policyRowsFrom } from '../src/policy';
import { ROOT_DIR } from '../src/registry';
import { loadServiceApis } from '../src/service-apis';
import { articlesApi } from '../../services/articles/src/api';
import { call, startArticles, type TestService } from '../../services/articles/test/support/harness';

// The one place: the articles service's api module, loaded by the service and by the gateway
// alike, with the spec of GET /articles (public by default) asking for an admin. Specs are frozen,
// so the change is a copy of the module's specs, not an edit of them.
jest.mock('../../services/articles/src/api', () => {
  const actual = jest.requireActual<typeof import('../../services/articles/src/api')>('../../services/articles/src/api');
  const changed = { ...actual.articlesApi, listArticles: { ...actual.articlesApi.listArticles, level: 'admin' as const } };
  return { ...actual, articlesApi: changed, api: changed };
});

let articles: TestService;
let server: http.Server;
let gateway: TestGateway;

beforeAll(async () => {
  const declared = jest.requireActual<typeof import('../../services/articles/src/api')>('../../services/articles/src/api');
  expect(declared.articlesApi.listArticles.level).toBe('public');
  expect(Object.isFrozen(declared.articlesApi.listArticles)).toBe(true);
  expect(articlesApi.listArticles.level).toBe('admin');

  articles = await startArticles();
  server = http.createServer(articles.app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const articlesUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const routes = policyRowsFrom(loadServiceApis(ROUTED_SERVICES, (s) => path.join(ROOT_DIR, s.dir, 'src', 'api.ts')));
  // Identity is not needed here: its part of the document is simply missing.
  gateway = startGateway({ ARTICLES_URL: articlesUrl, IDENTITY_URL: 'http://127.0.0.1:9' }, undefined, routes);
});

afterAll(async () => {
  gateway?.close();
  await new Promise((resolve) => server?.close(resolve));
  await articles?.stop();
});

describe('when the level of GET /articles is changed in its spec only', () => {
  test('then the gateway enforces it: no credential 401, a user 403, an admin 200', async () => {
    const anonymous = await request(gateway.app).get('/articles');
    const user = await request(gateway.app).get('/articles').set('Authorization', `Bearer ${aUserToken()}`);
    const admin = await request(gateway.app).get('/articles').set('Authorization', `Bearer ${anAdminToken()}`);

    expect(anonymous.status).toBe(401);
    expect(user.status).toBe(403);
    expect(user.body).toMatchObject({ status: 403, code: 'forbidden' });
    expect(admin.status).toBe(200);
    expect(admin.body).toMatchObject({ count: expect.any(Number), rows: expect.any(Array) });
  });

  test('then the service enforces it too, for a caller that reaches it directly', async () => {
    const anonymous = await call(articles.app, 'get', '/articles');
    const user = await call(articles.app, 'get', '/articles', { kind: 'user', id: anObjectId(), role: 'user' });
    const admin = await call(articles.app, 'get', '/articles', { kind: 'user', id: anObjectId(), role: 'admin' });

    expect(anonymous.status).toBe(401);
    expect(user.status).toBe(403);
    expect(admin.status).toBe(200);
  });

  test("then /openapi.json gives the route that level, in the gateway's document and in the service's part", async () => {
    const merged = await request(gateway.app).get('/openapi.json');
    const part = await request(articles.app).get('/openapi.json');

    expect(merged.status).toBe(200);
    expect(merged.body.paths['/articles'].get['x-restgate-level']).toBe('admin');
    expect(merged.body.paths['/articles'].get.security).toEqual([{ userToken: [] }]);
    expect(part.body.paths['/articles'].get['x-restgate-level']).toBe('admin');
    // Only the changed route: its neighbours keep their levels.
    expect(merged.body.paths['/articles'].post['x-restgate-level']).toBe('user');
  });
});
