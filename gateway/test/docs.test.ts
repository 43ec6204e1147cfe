import express from 'express';
import Joi from 'joi';
import request from 'supertest';
import { createLogger, createMetrics } from '@restgate/shared';
import { createHttpApp, defineRoute, listen, type RouteDef, type RunningServer } from '@restgate/shared/http';
import { buildOpenApiPart, type OpenApiDocument, type OpenApiOperation } from '@restgate/shared/openapi';
import { listingQuerySchema } from '@restgate/shared/data';
import { TEST_PRINCIPAL_SECRET, validateOpenApiDocument } from '@restgate/shared/testing';
import { asListener, gatewayFastify } from '../src/app';
import { mountDocs, mergeOpenApi, type DocsPolicyRow, type DocsRouterOptions } from '../src/docs';
import { POLICY_ROWS } from './support/routes';

const logger = createLogger({ name: 'docs-test', level: 'silent' });

/** The gateway's fastify bootstrap (ids, security headers, problem+json) with only the docs on it. */
function docsApp(options: DocsRouterOptions) {
  const app = gatewayFastify({ logger, redact: (url) => url, metrics: createMetrics() });
  mountDocs(app, options);
  return asListener(app, logger);
}
const ok = async () => ({ status: 200 });
const view = Joi.object({ id: Joi.string(), title: Joi.string().example('Hello') });

/** Two small services' route tables, in the shape the real ones have. */
const identityRoutes: RouteDef[] = [
  defineRoute({
    method: 'post',
    path: '/users',
    level: 'master',
    summary: 'Create a user.',
    schemas: { body: Joi.object({ email: Joi.string().email().required(), password: Joi.string().min(8).required() }) },
    responses: { 201: { description: 'The user.', schema: view }, 409: { description: 'The e-mail is taken.' } },
    handler: ok,
  }),
  defineRoute({
    method: 'get',
    path: '/users/me',
    level: 'user',
    summary: 'The calling user.',
    responses: { 200: { description: 'The user.', schema: view } },
    handler: ok,
  }),
  defineRoute({ method: 'get', path: '/users/:id', level: 'public', summary: 'A user, public view.', handler: ok }),
  // Served by the service, but the gateway's table has no row for it: not in the document.
  defineRoute({ method: 'put', path: '/users/me', level: 'user', summary: 'Change yourself.', handler: ok }),
];
const articleRoutes: RouteDef[] = [
  defineRoute({
    method: 'get',
    path: '/articles',
    level: 'public',
    summary: 'List articles.',
    schemas: { query: listingQuerySchema({ searchable: ['title'], sortable: ['createdAt'], selectable: ['title'] }) },
    responses: { 200: { description: 'A page.', schema: Joi.object({ count: Joi.number().integer(), rows: Joi.array().items(view) }) } },
    handler: ok,
  }),
  defineRoute({
    method: 'delete',
    path: '/articles/:id',
    level: 'user',
    summary: 'Delete an article.',
    responses: { 204: { description: 'Deleted.' } },
    handler: ok,
  }),
];

const policy: DocsPolicyRow[] = [
  // The operator opened sign-up: the gateway's level wins over the service's.
  { method: 'post', path: '/users', level: 'public', upstream: 'identity' },
  { method: 'get', path: '/users/me', level: 'user', upstream: 'identity' },
  { method: 'get', path: '/users/:id', level: 'public', upstream: 'identity' },
  { method: 'post', path: '/auth/github', level: 'provider', upstream: 'identity' },
  { method: 'get', path: '/articles', level: 'public', upstream: 'articles' },
  { method: 'delete', path: '/articles/:id', level: 'user', upstream: 'articles' },
];

const parts = {
  identity: buildOpenApiPart(identityRoutes, { title: 'identity' }),
  articles: buildOpenApiPart(articleRoutes, { title: 'articles' }),
};

const operationsOf = (doc: OpenApiDocument) =>
  Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, op: op as OpenApiOperation })),
  );
const keyOf = (row: DocsPolicyRow) => `${row.method.toUpperCase()} ${row.path.replace(/:(\w+)/g, '{$1}')}`;

describe('mergeOpenApi', () => {
  const doc = mergeOpenApi(parts, policy);
  const op = (key: string) => operationsOf(doc).find((o) => o.key === key)!.op;

  test('when parts are merged for a policy table, then the result is a valid OpenAPI 3.1 document served from the gateway root', () => {
    expect(validateOpenApiDocument(doc)).toEqual({ valid: true, errors: [] });
    expect(doc.servers).toEqual([{ url: '/' }]);
  });

  test('when merged, then the operations are exactly the routes the gateway serves', () => {
    expect(
      operationsOf(doc)
        .map((o) => o.key)
        .sort(),
    ).toEqual(policy.map(keyOf).sort());
    expect(operationsOf(doc).map((o) => o.key)).not.toContain('PUT /users/me');
  });

  test('when the gateway level differs from the service level, then security and 401/403 follow the gateway', () => {
    const signUp = op('POST /users');

    expect(signUp.security).toEqual([]);
    expect(signUp['x-restgate-level']).toBe('public');
    expect(signUp.responses).not.toHaveProperty('401');
    expect(signUp.responses).not.toHaveProperty('403');
    expect(signUp.responses['409']).toMatchObject({ description: 'The e-mail is taken.' });
    expect(op('GET /users/me').security).toEqual([{ userToken: [] }]);
    expect(op('DELETE /articles/{id}').security).toEqual([{ userToken: [] }]);
  });

  test('when merged, then every operation lists the gateway errors, and the ones with bodies 413 and 415', () => {
    for (const { key, op: operation } of operationsOf(doc)) {
      expect([key, Object.keys(operation.responses)]).toEqual([key, expect.arrayContaining(['429', '500', '502', '503', '504'])]);
    }
    expect(Object.keys(op('POST /users').responses)).toEqual(expect.arrayContaining(['413', '415']));
    expect(Object.keys(op('GET /articles').responses)).not.toContain('413');
  });

  test('when a listing is merged, then its parameters keep their defaults and limits', () => {
    const limit = op('GET /articles').parameters?.find((p) => p.name === 'limit');

    expect(limit).toMatchObject({ in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100, default: 30 } });
  });

  test('when no part describes a served route, then it is still listed and marked undocumented', () => {
    const github = op('POST /auth/github');

    expect(github['x-restgate-undocumented']).toBe(true);
    expect(github.security).toEqual([{ providerToken: [] }]);
    expect(github.description).toMatch(/does not describe this route/);
    // The service answers a route it has not got (a social provider it has not enabled) with a 404.
    expect(github.responses['404']).toMatchObject({ description: expect.stringMatching(/does not serve this route/) });
  });

  test("when a disabled route's row carries its service's spec, then it is described from the spec, with how to enable it, and answers as it does now: 404, no credential", () => {
    const [row] = POLICY_ROWS.filter((r) => r.method === 'post' && r.path === '/auth/github');
    const merged = mergeOpenApi(parts, [row!]);
    const github = operationsOf(merged)[0]!.op;

    expect(validateOpenApiDocument(merged)).toEqual({ valid: true, errors: [] });
    expect(github.summary).toMatch(/^Sign in with a GitHub access token/);
    expect(github.summary).not.toMatch(/not described/);
    expect(github.description).toContain('SOCIAL_PROVIDERS');
    expect(github.description).toMatch(/^\*\*Not enabled in this deployment:\*\* every request answers 404/);
    expect(github.responses['404']).toMatchObject({ description: expect.stringContaining('not enabled') });
    for (const status of ['201', '401', '409', '422']) expect(github.responses[status]).toBeUndefined();
    expect(github.security).toEqual([]);
  });
});

describe('GET /openapi.json', () => {
  let identity: RunningServer;
  let articles: RunningServer;

  const serviceApp = (routes: RouteDef[], name: string) => createHttpApp({ logger, routes, principalSecret: TEST_PRINCIPAL_SECRET, name });
  /** A gateway-like app: the gateway's fastify bootstrap with the docs mounted as the gateway mounts them. */
  const gatewayApp = (upstreams: Record<string, string>, cacheMs = 0) => docsApp({ upstreams, policy, logger, timeoutMs: 2_000, cacheMs });
  const closedPortUrl = async () => {
    const server = await listen(express(), 0, '127.0.0.1');
    await server.stop();
    return server.url;
  };

  beforeAll(async () => {
    identity = await listen(serviceApp(identityRoutes, 'identity'), 0, '127.0.0.1');
    articles = await listen(serviceApp(articleRoutes, 'articles'), 0, '127.0.0.1');
  });

  afterAll(async () => {
    await Promise.all([identity.stop(1_000), articles.stop(1_000)]);
  });

  test('when every upstream answers, then the merged document describes the routes of all of them', async () => {
    const res = await request(gatewayApp({ identity: identity.url, articles: articles.url })).get('/openapi.json');

    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual(JSON.parse(JSON.stringify(mergeOpenApi(parts, policy))));
  });

  test('when an upstream never answered, then its routes are placeholders and the document says it is incomplete', async () => {
    const res = await request(gatewayApp({ identity: await closedPortUrl(), articles: articles.url })).get('/openapi.json');

    expect(res.status).toBe(200);
    expect(res.body['x-restgate-missing-upstreams']).toEqual(['identity']);
    expect(res.body.paths['/users/me'].get['x-restgate-undocumented']).toBe(true);
    expect(res.body.paths['/users/me'].get.description).toMatch(/did not answer/);
    expect(res.body.paths['/articles'].get.summary).toBe('List articles.');
  });

  test('when an upstream goes down after answering once, then its last part is still served', async () => {
    const flaky = await listen(serviceApp(articleRoutes, 'articles'), 0, '127.0.0.1');
    const app = gatewayApp({ identity: identity.url, articles: flaky.url });
    await request(app).get('/openapi.json').expect(200);
    await flaky.stop(1_000);

    const res = await request(app).get('/openapi.json');

    expect(res.status).toBe(200);
    expect(res.body['x-restgate-missing-upstreams']).toBeUndefined();
    expect(res.body.paths['/articles'].get.summary).toBe('List articles.');
  });

  test('when no upstream answers, then it is a 503 problem', async () => {
    const res = await request(gatewayApp({ identity: await closedPortUrl() })).get('/openapi.json');

    expect(res.status).toBe(503);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ status: 503, code: 'service_unavailable' });
  });
});

describe('GET /docs', () => {
  const app = docsApp({ upstreams: {}, policy, logger });

  test('when the page is asked for, then it is HTML that loads Swagger UI from this origin under a strict CSP', async () => {
    const res = await request(app).get('/docs');

    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.text).toContain('<div id="swagger-ui"></div>');
    expect(res.text).not.toMatch(/https?:\/\//);
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toMatch(/script-src 'self'(;|$)/);
    expect(csp).not.toMatch(/unsafe-(eval|inline)/);
    expect(csp).toMatch(/connect-src 'self'/);
  });

  test.each([
    ['/docs/assets/swagger-ui-bundle.js', /^text\/javascript/],
    ['/docs/assets/swagger-ui.css', /^text\/css/],
    ['/docs/assets/favicon-32x32.png', /^image\/png/],
    ['/docs/assets/docs-init.js', /^text\/javascript/],
  ])('when the page asks for %s, then it is served with its content type', async (path, type) => {
    const res = await request(app).get(path);

    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(type);
    expect(Number(res.headers['content-length'] ?? Buffer.byteLength(res.text ?? ''))).toBeGreaterThan(0);
  });

  test('when the page starts, then it reads the gateway document', async () => {
    const res = await request(app).get('/docs/assets/docs-init.js');

    expect(res.text).toContain("url: '/openapi.json'");
    expect(res.text).toContain('validatorUrl: null');
  });

  test('when a file of the package is not one the page needs, then it is not served', async () => {
    const res = await request(app).get('/docs/assets/index.html');

    expect(res.status).toBe(404);
  });
});
