import Joi from 'joi';
import request from 'supertest';
import { createLogger } from '@restgate/shared';
import { createHttpApp, defineRoute, type RouteDef } from '@restgate/shared/http';
import { applyAccessLevel, buildOpenApiPart, openApiPath, type OpenApiDocument, type OpenApiOperation } from '@restgate/shared/openapi';
import { listingQuerySchema } from '@restgate/shared/data';
import type { OpenApiParameter } from '../src/openapi/types';
import { findOperation, responseMatches, TEST_PRINCIPAL_SECRET, validateOpenApiDocument } from '@restgate/shared/testing';

const noop = async () => ({ status: 200 });
const thingView = Joi.object({
  id: Joi.string().hex().length(24).example('65a1f0c2e4b0a1b2c3d4e5f6'),
  title: Joi.string().example('A thing'),
  createdAt: Joi.date().iso(),
}).description('A thing.');
const thingBody = Joi.object({
  title: Joi.string().min(1).max(200).required().description('Title of the thing.').example('A thing'),
  count: Joi.number().integer().min(0).default(0),
});
const listing = listingQuerySchema({ searchable: ['title'], sortable: ['title', 'createdAt'], selectable: ['title', 'createdAt'] });

/** One row per access level, with the schemas and responses a real table has. */
function sampleRoutes(): RouteDef[] {
  return [
    defineRoute({
      method: 'post',
      path: '/things',
      level: 'master',
      summary: 'Create a thing.',
      schemas: { body: thingBody },
      responses: { 201: { description: 'The new thing.', schema: thingView }, 409: { description: 'The title is taken.' } },
      handler: noop,
    }),
    defineRoute({
      method: 'get',
      path: '/things',
      level: 'public',
      summary: 'List things.',
      schemas: { query: listing },
      responses: {
        200: { description: 'A page.', schema: Joi.object({ count: Joi.number().integer(), rows: Joi.array().items(thingView) }) },
      },
      handler: noop,
    }),
    defineRoute({
      method: 'get',
      path: '/things/:id',
      level: 'public',
      summary: 'One thing.',
      responses: { 200: { description: 'The thing.', schema: thingView } },
      handler: noop,
    }),
    defineRoute({
      method: 'put',
      path: '/things/:id',
      level: 'user',
      summary: 'Change a thing.',
      schemas: { body: thingBody },
      handler: noop,
    }),
    defineRoute({
      method: 'delete',
      path: '/things/:id',
      level: 'admin',
      summary: 'Delete a thing.',
      responses: { 204: { description: 'Deleted.' } },
      handler: noop,
    }),
    defineRoute({ method: 'put', path: '/things/:id/secret', level: 'basic', summary: 'Change a secret.', handler: noop }),
    defineRoute({ method: 'post', path: '/auth', level: 'master+basic', summary: 'Sign in.', tags: ['auth'], handler: noop }),
    defineRoute({
      method: 'post',
      path: '/auth/github',
      level: 'provider',
      summary: 'Sign in with GitHub.',
      tags: ['auth'],
      handler: noop,
    }),
  ];
}

const part = buildOpenApiPart(sampleRoutes(), { title: 'things' });
const op = (path: string, method: keyof OpenApiDocument['paths'][string]) => part.paths[path]?.[method] as OpenApiOperation;
const queryParam = (name: string) => op('/things', 'get').parameters?.find((p) => p.name === name) as OpenApiParameter;

describe('buildOpenApiPart', () => {
  test('when a body needs at least one of its fields, then the body itself is required; when every field may be left out, it is not', () => {
    const body = (schema: Joi.ObjectSchema) =>
      buildOpenApiPart(
        [defineRoute({ method: 'put', path: '/t', level: 'public', summary: 'S.', schemas: { body: schema }, handler: noop })],
        { title: 't' },
      ).paths['/t']?.put?.requestBody;

    expect(body(Joi.object({ a: Joi.string(), b: Joi.string() }).or('a', 'b'))?.required).toBe(true);
    expect(body(Joi.object({ a: Joi.string(), b: Joi.string() }))?.required).toBe(false);
  });

  test('when built from a route table, then it is a valid OpenAPI 3.1 document', () => {
    const result = validateOpenApiDocument(part);

    expect(result).toEqual({ valid: true, errors: [] });
    expect(part.openapi).toBe('3.1.0');
    expect(part.info.title).toBe('things');
  });

  test('when a route has a body, then it accepts both a form and JSON with the same schema and example', () => {
    const body = op('/things', 'post').requestBody;

    expect(Object.keys(body?.content ?? {})).toEqual(['application/x-www-form-urlencoded', 'application/json']);
    const form = body!.content['application/x-www-form-urlencoded']!.schema;
    expect(form).toEqual(body!.content['application/json']!.schema);
    expect(form).toMatchObject({
      type: 'object',
      required: ['title'],
      properties: {
        title: { type: 'string', minLength: 1, maxLength: 200, description: 'Title of the thing.', examples: ['A thing'] },
        count: { type: 'integer', default: 0 },
      },
    });
    // Unknown keys are dropped, not rejected: the request schema must not forbid them.
    expect(form).not.toHaveProperty('additionalProperties');
    expect(body!.required).toBe(true);
  });

  test.each([
    ['/things', 'get', []],
    ['/things', 'post', [{ masterKey: [] }]],
    ['/things/{id}', 'put', [{ userToken: [] }]],
    ['/things/{id}', 'delete', [{ userToken: [] }]],
    ['/things/{id}/secret', 'put', [{ basic: [] }]],
    ['/auth', 'post', [{ masterKey: [], basic: [] }]],
    ['/auth/github', 'post', [{ providerToken: [] }]],
  ] as const)('when the route %s %s has its level, then its security requirement follows it', (path, method, security) => {
    const operation = op(path, method);

    expect(operation.security).toEqual(security);
    for (const requirement of security)
      for (const scheme of Object.keys(requirement)) expect(part.components.securitySchemes).toHaveProperty(scheme);
  });

  test('when a route needs a credential, then 401 (and 403 for a wrong principal) are documented; a public one has neither', () => {
    expect(Object.keys(op('/things', 'post').responses)).toEqual(expect.arrayContaining(['401', '403']));
    expect(Object.keys(op('/auth/github', 'post').responses)).toContain('401');
    expect(Object.keys(op('/things/{id}', 'get').responses)).not.toEqual(expect.arrayContaining(['401']));
    expect(Object.keys(op('/things/{id}', 'get').responses)).not.toContain('403');
  });

  test('when a route lists, then the listing parameters carry their defaults and limits', () => {
    expect(queryParam('q')).toMatchObject({ in: 'query', required: false, schema: { type: 'string', maxLength: 100 } });
    expect(queryParam('page')).toMatchObject({ schema: { type: 'integer', minimum: 1, default: 1 } });
    expect(queryParam('page')).toMatchObject({ schema: { maximum: 100 } });
    expect(queryParam('page').description).toMatch(/at most 100 \(a fixed maximum/);
    expect(queryParam('limit')).toMatchObject({ schema: { type: 'integer', minimum: 1, maximum: 100, default: 30 } });
    expect(queryParam('sort')).toMatchObject({ schema: { type: 'string', default: '-createdAt' } });
    expect(queryParam('fields')?.description).toMatch(/id/);
    expect(op('/things', 'get').responses['200']).toMatchObject({
      headers: { 'X-Total-Count': expect.any(Object), Link: expect.any(Object) },
    });
  });

  test('when a path has parameters, then they are path parameters and 404 is documented', () => {
    const operation = op('/things/{id}', 'get');

    expect(operation.parameters).toEqual([{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }]);
    expect(operation.responses['404']).toEqual({ $ref: '#/components/responses/NotFound' });
  });

  test('when a route validates a body, then 400, 413 and 415 are problem+json responses; 409 keeps its own description', () => {
    const responses = op('/things', 'post').responses;

    expect(responses['400']).toEqual({ $ref: '#/components/responses/BadRequest' });
    expect(responses['413']).toEqual({ $ref: '#/components/responses/PayloadTooLarge' });
    expect(responses['415']).toEqual({ $ref: '#/components/responses/UnsupportedMediaType' });
    expect(responses['409']).toMatchObject({
      description: 'The title is taken.',
      content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
    });
    expect(part.components.responses.BadRequest?.content?.['application/problem+json']?.examples?.validation_failed?.value).toMatchObject({
      status: 400,
      param: 'email',
      errors: [{ param: 'email', rule: 'string.email' }],
    });
  });

  test('when a route declares a success schema, then it is the JSON response with the joi examples', () => {
    const created = op('/things', 'post').responses['201'];

    expect(created).toMatchObject({
      description: 'The new thing.',
      content: {
        'application/json': {
          schema: {
            type: 'object',
            description: 'A thing.',
            properties: { id: { type: 'string', examples: ['65a1f0c2e4b0a1b2c3d4e5f6'] } },
          },
        },
      },
    });
    expect(op('/things/{id}', 'delete').responses['204']).toEqual({
      description: 'Deleted.',
      headers: { 'X-Request-Id': { $ref: '#/components/headers/RequestId' } },
    });
  });

  test('when the Problem schema is read, then it has every member of the error contract', () => {
    const problem = part.components.schemas.Problem as { properties: Record<string, unknown>; required: string[] };

    expect(Object.keys(problem.properties)).toEqual([
      'type',
      'title',
      'status',
      'detail',
      'code',
      'requestId',
      'param',
      'message',
      'errors',
      'limit',
      'mfaToken',
    ]);
    expect(problem.required).toEqual(['type', 'title', 'status', 'detail', 'code']);
    expect(part.components.schemas.FieldError).toMatchObject({ required: ['param', 'message', 'rule'] });
  });

  test('when a body must hold exactly one of two fields (joi xor), then the document says the body is required', () => {
    const part = buildOpenApiPart(
      [
        defineRoute({
          method: 'delete',
          path: '/factors',
          level: 'public',
          summary: 'One of two.',
          schemas: { body: Joi.object({ a: Joi.string(), b: Joi.string() }).xor('a', 'b') },
          responses: { 204: { description: 'Done.' } },
          handler: noop,
        }),
        defineRoute({
          method: 'put',
          path: '/optional',
          level: 'public',
          summary: 'Anything.',
          schemas: { body: Joi.object({ a: Joi.string(), b: Joi.string() }) },
          responses: { 204: { description: 'Done.' } },
          handler: noop,
        }),
      ],
      { title: 'xor' },
    );

    expect(part.paths['/factors']!.delete!.requestBody).toMatchObject({ required: true });
    expect(part.paths['/optional']!.put!.requestBody).toMatchObject({ required: false });
  });

  test('when a route says noStore, then its success answers document Cache-Control: no-store, and the others do not', () => {
    const tokens = buildOpenApiPart(
      [
        defineRoute({
          method: 'post',
          path: '/tokens',
          level: 'public',
          summary: 'Tokens.',
          noStore: true,
          responses: { 201: { description: 'Made.' } },
          handler: noop,
        }),
      ],
      { title: 'tokens' },
    );

    expect(tokens.paths['/tokens']!.post!.responses['201']).toMatchObject({
      headers: { 'Cache-Control': { $ref: '#/components/headers/CacheControl' } },
    });
    expect(tokens.components.headers.CacheControl).toMatchObject({ schema: { const: 'no-store' } });
    expect(op('/things', 'post').responses['201']).not.toHaveProperty(['headers', 'Cache-Control']);
  });

  test('when a route says noStore, then every answer says Cache-Control: no-store, an error too', async () => {
    const app = createHttpApp({
      name: 'no-store-test',
      logger: createLogger({ name: 'no-store-test', level: 'silent' }),
      principalSecret: TEST_PRINCIPAL_SECRET,
      routes: [
        defineRoute({
          method: 'get',
          path: '/token',
          level: 'public',
          summary: 'A token.',
          noStore: true,
          handler: async () => ({ status: 200, body: { token: 't' } }),
        }),
        defineRoute({ method: 'get', path: '/refused', level: 'master', summary: 'Refused.', noStore: true, handler: noop }),
        defineRoute({ method: 'get', path: '/plain', level: 'public', summary: 'Plain.', handler: noop }),
      ],
    });

    const replies = await Promise.all(['/token', '/refused', '/plain'].map((path) => request(app).get(path)));

    expect(replies.map((res) => [res.status, res.headers['cache-control']])).toEqual([
      [200, 'no-store'],
      [401, 'no-store'],
      [200, undefined],
    ]);
  });

  test('when the same route appears twice, then building fails', () => {
    const routes = sampleRoutes();

    expect(() => buildOpenApiPart([...routes, routes[0]!], { title: 'twice' })).toThrow(/twice/);
  });
});

describe('applyAccessLevel', () => {
  test('when an operator opens a master route to the public, then its security and 401/403 go away', () => {
    const opened = applyAccessLevel(op('/things', 'post'), 'public');

    expect(opened.security).toEqual([]);
    expect(opened['x-restgate-level']).toBe('public');
    expect(opened.responses).not.toHaveProperty('401');
    expect(opened.responses).not.toHaveProperty('403');
    expect(opened.description).toMatch(/^\*\*Access:\*\* public/);
  });

  test('when a public route is closed to admins, then it gets the admin requirement and 401/403', () => {
    const closed = applyAccessLevel(op('/things/{id}', 'get'), 'admin');

    expect(closed.security).toEqual([{ userToken: [] }]);
    expect(closed.responses['401']).toEqual({ $ref: '#/components/responses/Unauthorized' });
    expect(closed.responses['403']).toEqual({ $ref: '#/components/responses/Forbidden' });
  });
});

describe('openApiPath', () => {
  test('when an Express path has parameters, then they become templates', () => {
    expect(openApiPath('/users/:id/password')).toBe('/users/{id}/password');
  });
});

describe('responseMatches', () => {
  const thing = { id: '65a1f0c2e4b0a1b2c3d4e5f6', title: 'A thing', createdAt: '2024-01-02T03:04:05.000Z' };

  test('when a response has a documented status, content type and body, then it matches', () => {
    expect(responseMatches(part, 'get', '/things/65a1f0c2e4b0a1b2c3d4e5f6', 200, 'application/json; charset=utf-8', thing)).toEqual({
      ok: true,
      problems: [],
    });
    expect(responseMatches(part, 'DELETE', '/things/x', 204, undefined, {})).toEqual({ ok: true, problems: [] });
    const problem = {
      type: 'urn:restgate:problem:not_found',
      title: 'Not found',
      status: 404,
      detail: 'No such resource.',
      code: 'not_found',
      requestId: 'r1',
    };
    expect(responseMatches(part, 'get', '/things/x?access_token=k', 404, 'application/problem+json; charset=utf-8', problem)).toEqual({
      ok: true,
      problems: [],
    });
  });

  test('when the body has a field the schema does not know, then it does not match and the field is named', () => {
    const result = responseMatches(part, 'get', '/things/x', 200, 'application/json', { ...thing, password: 'secret' });

    expect(result.ok).toBe(false);
    expect(result.problems.join()).toMatch(/password/);
  });

  test('when the body breaks a format, then it does not match', () => {
    expect(responseMatches(part, 'get', '/things/x', 200, 'application/json', { ...thing, createdAt: 'yesterday' }).ok).toBe(false);
  });

  test('when the status, content type or route is undocumented, then it does not match', () => {
    expect(responseMatches(part, 'get', '/things/x', 418, 'application/json', thing).problems[0]).toMatch(/418 is not documented/);
    expect(responseMatches(part, 'get', '/things/x', 200, 'text/html', '<p>').problems[0]).toMatch(/text\/html/);
    expect(responseMatches(part, 'get', '/nowhere', 200, 'application/json', {}).problems[0]).toMatch(/no operation/);
  });

  test('when a literal path and a template both match, then the literal wins', () => {
    const doc = buildOpenApiPart(
      [
        defineRoute({ method: 'get', path: '/things/:id', level: 'public', summary: 'One.', handler: noop }),
        defineRoute({ method: 'get', path: '/things/mine', level: 'user', summary: 'Mine.', handler: noop }),
      ],
      { title: 'order' },
    );

    expect(findOperation(doc, 'get', '/things/mine')?.template).toBe('/things/mine');
    expect(findOperation(doc, 'get', '/things/123')?.template).toBe('/things/{id}');
  });
});

describe('GET /openapi.json on a service', () => {
  test('when the app has a route table, then it serves its part under its name', async () => {
    const app = createHttpApp({
      logger: createLogger({ name: 'things', level: 'silent' }),
      routes: sampleRoutes(),
      principalSecret: TEST_PRINCIPAL_SECRET,
      name: 'things',
    });

    const res = await request(app).get('/openapi.json');

    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual(JSON.parse(JSON.stringify(part)));
  });
});

describe('the listing parameters sort and fields', () => {
  const doc = buildOpenApiPart(
    [
      defineRoute({
        method: 'get',
        path: '/things',
        level: 'public',
        summary: 'Things',
        schemas: { query: listing },
        handler: async () => ({ status: 200 }),
      }),
    ],
    { title: 'things' },
  );
  const patternOf = (name: string) => {
    const param = doc.paths['/things']!.get!.parameters!.find((p) => p.name === name)!;
    return new RegExp(param.schema.pattern as string);
  };

  test.each([
    [
      'sort',
      ['title', '-createdAt', 'title,-createdAt', ' title , createdAt ', ',title', 'title,,'],
      ['', ',', '- title', 'bogus', 'title,bogus', '-', 'TITLE'],
    ],
    ['fields', ['title', 'title,createdAt', 'createdAt,'], ['', '-title', 'id', 'title,bogus']],
  ])('when the API docs give a pattern for %s, then it accepts exactly what validation accepts', (name, accepted, refused) => {
    const pattern = patternOf(name);

    for (const value of [...accepted, ...refused]) {
      const valid = !listing.validate({ [name]: value }).error;
      expect({ value, documented: pattern.test(value) }).toEqual({ value, documented: valid });
      expect(valid).toBe(accepted.includes(value));
    }
  });
});
