import Joi from 'joi';
import { defineRoute } from '@restgate/shared/http';
import { buildOpenApiPart } from '@restgate/shared/openapi';
import type { Exchange } from './http';
import { checkExchanges } from './response-check';

const doc = buildOpenApiPart(
  [
    defineRoute({
      method: 'get',
      path: '/widgets/:id',
      level: 'public',
      summary: 'A widget.',
      responses: { 200: { description: 'The widget.', schema: Joi.object({ id: Joi.string().required(), name: Joi.string() }) } },
      handler: async () => ({ status: 200 }),
    }),
  ],
  { title: 'widgets' },
);

const problem = (status: number, code: string) => ({ type: `urn:restgate:problem:${code}`, title: 'x', status, detail: 'x', code });

function anExchange(overrides: Partial<Exchange> = {}): Exchange {
  return {
    test: 'a test',
    method: 'GET',
    path: '/widgets/w1',
    status: 200,
    contentType: 'application/json; charset=utf-8',
    body: { id: 'w1', name: 'Sprocket' },
    ...overrides,
  };
}

describe('checkExchanges', () => {
  test('when every response is what the document describes, then there is no report', () => {
    const exchanges = [anExchange(), anExchange({ status: 404, contentType: 'application/problem+json', body: problem(404, 'not_found') })];

    expect(checkExchanges(doc, exchanges)).toBeUndefined();
  });

  test('when a status is not documented, then the report names the operation, the status and the test', () => {
    const report = checkExchanges(doc, [anExchange({ status: 409, test: 'GET /widgets/:id when it clashes' })]);

    expect(report).toMatch(/GET \/widgets\/\{id\} → 409/);
    expect(report).toMatch(/status 409 is not documented/);
    expect(report).toMatch(/in: GET \/widgets\/:id when it clashes/);
  });

  test('when a body does not have the documented schema or the content type is not documented, then both are reported', () => {
    const report = checkExchanges(doc, [
      anExchange({ body: { id: 'w1', password: 'secret' } }),
      anExchange({ path: '/widgets/w2', contentType: 'text/html', body: '<p>hi</p>' }),
    ]);

    expect(report).toMatch(/^2 kind\(s\) of response/);
    expect(report).toMatch(/body must NOT have additional properties {"additionalProperty":"password"}/);
    expect(report).toMatch(/content type "text\/html" is not documented/);
  });

  test('when the same mismatch comes from several tests, then it is listed once, with each test', () => {
    const report = checkExchanges(doc, [
      anExchange({ status: 418, path: '/widgets/a', test: 'first' }),
      anExchange({ status: 418, path: '/widgets/b', test: 'second' }),
    ]);

    expect(report).toMatch(/^1 kind\(s\) of response, among the 2 checked/);
    expect(report).toMatch(/in: first\n\s+in: second/);
  });

  test('when a path is not an API operation (health, readiness, metrics, the document, the docs page), then it is not checked', () => {
    const exchanges = ['/health', '/ready', '/metrics', '/openapi.json', '/docs', '/docs/assets/swagger-ui.css'].map((path) =>
      anExchange({ path, contentType: 'text/plain', body: 'anything' }),
    );

    expect(checkExchanges(doc, exchanges)).toBeUndefined();
  });

  test("when a method and path are in no operation, then only the gateway's 404 route_not_found or 405 method_not_allowed passes", () => {
    const unrouted = [
      anExchange({ path: '/gadgets', status: 404, contentType: 'application/problem+json', body: problem(404, 'route_not_found') }),
      anExchange({ method: 'POST', status: 405, contentType: 'application/problem+json', body: problem(405, 'method_not_allowed') }),
    ];

    expect(checkExchanges(doc, unrouted)).toBeUndefined();
    expect(checkExchanges(doc, [anExchange({ path: '/gadgets' })])).toMatch(/no operation in the document for GET \/gadgets/);
  });
});
