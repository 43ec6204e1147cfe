import request from 'supertest';
import type { OpenApiDocument } from '@restgate/shared/openapi';
import { responseMatches, validateOpenApiDocument } from '@restgate/shared/testing';
import { ACCESS, aCreator, aMarker, anArticle, callerFor, MARKER_FIELD, describeUnless } from './support/builders';
import { call, startArticles, type TestService } from './support/harness';

describeUnless(
  'list',
  'read',
  'create',
  'update',
  'delete',
)('GET /openapi.json (the articles part)', () => {
  let svc: TestService;
  let doc: OpenApiDocument;
  beforeAll(async () => {
    svc = await startArticles();
    doc = (await request(svc.app).get('/openapi.json').expect(200)).body as OpenApiDocument;
  });
  afterAll(async () => {
    await svc.stop();
  });

  test('when served, then it is valid OpenAPI 3.1 with every route of the table at its default level', () => {
    expect(validateOpenApiDocument(doc)).toEqual({ valid: true, errors: [] });
    expect(doc.info.title).toBe('articles');
    expect(Object.keys(doc.paths).sort()).toEqual(['/articles', '/articles/{id}']);
    expect(Object.keys(doc.paths['/articles']!).sort()).toEqual(['get', 'post']);
    expect(Object.keys(doc.paths['/articles/{id}']!).sort()).toEqual(['delete', 'get', 'patch', 'put']);
  });

  test('when the API answers, then each real response matches what the document says', async () => {
    const owner = aCreator();
    const [lister, reader, updater, deleter] = [
      callerFor(ACCESS.list, owner),
      callerFor(ACCESS.read, owner),
      callerFor(ACCESS.update, owner),
      callerFor(ACCESS.delete, owner),
    ];
    const marker = aMarker();
    const created = await call(svc.app, 'post', '/articles', owner).send(anArticle({ [MARKER_FIELD]: marker }));
    const path = `/articles/${created.body.id}`;
    const responses = [
      ['post', '/articles', created],
      ['get', `/articles?q=${marker}`, await call(svc.app, 'get', `/articles?q=${marker}`, lister)],
      [
        'get',
        `/articles?q=${marker}&fields=${MARKER_FIELD},user`,
        await call(svc.app, 'get', `/articles?q=${marker}&fields=${MARKER_FIELD},user`, lister),
      ],
      ['get', '/articles?limit=101', await call(svc.app, 'get', '/articles?limit=101', lister)],
      ['get', path, await call(svc.app, 'get', path, reader)],
      ['patch', path, await call(svc.app, 'patch', path, updater).send({ [MARKER_FIELD]: 'changed' })],
      ['put', path, await call(svc.app, 'put', path).send({ [MARKER_FIELD]: 'nope' })],
      ['post', '/articles', await call(svc.app, 'post', '/articles', owner).send({})],
      ['post', '/articles', await call(svc.app, 'post', '/articles').send(anArticle())],
      ['delete', path, await call(svc.app, 'delete', path, deleter)],
      ['get', path, await call(svc.app, 'get', path, reader)],
    ] as const;

    const problems = responses.flatMap(
      ([method, url, res]) => responseMatches(doc, method, url, res.status, res.headers['content-type'], res.body).problems,
    );

    expect(responses.map(([, , res]) => res.status)).toEqual([201, 200, 200, 400, 200, 200, 401, 400, 401, 204, 404]);
    expect(problems).toEqual([]);
  });
});
