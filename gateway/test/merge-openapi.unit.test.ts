import { baseComponents, type OpenApiDocument } from '@restgate/shared/openapi';
import { validateOpenApiDocument } from '@restgate/shared/testing';
import { mergeOpenApi, type DocsPolicyRow } from '../src/docs';

/** A part the way a service builds it: the shared components plus one schema of its own, `Thing`. */
function aPart(path: string, thing: Record<string, unknown>): OpenApiDocument {
  const components = baseComponents();
  components.schemas.Thing = thing;
  return {
    openapi: '3.1.0',
    info: { title: path, version: '1' },
    paths: {
      [path]: {
        get: {
          summary: `GET ${path}`,
          responses: {
            '200': {
              description: 'A thing.',
              content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } },
            },
            '404': { $ref: '#/components/responses/NotFound' },
          },
        },
      },
    },
    components,
  } as unknown as OpenApiDocument;
}

const identityThing = { type: 'object', properties: { email: { type: 'string' } } };
const articlesThing = { type: 'object', properties: { title: { type: 'string' } } };
const policy: DocsPolicyRow[] = [
  { method: 'get', path: '/users', level: 'public', upstream: 'identity' },
  { method: 'get', path: '/articles', level: 'public', upstream: 'articles' },
];

describe('mergeOpenApi: components of each service', () => {
  const doc = mergeOpenApi({ identity: aPart('/users', identityThing), articles: aPart('/articles', articlesThing) }, policy);
  const okSchema = (path: string) =>
    (doc.paths[path]!.get as unknown as { responses: Record<string, { content: Record<string, { schema: unknown }> }> }).responses['200']!
      .content['application/json']!.schema;

  test('when two services define a schema of the same name, then both are kept, each under its service name', () => {
    expect(doc.components.schemas['identity.Thing']).toEqual(identityThing);
    expect(doc.components.schemas['articles.Thing']).toEqual(articlesThing);
    expect(doc.components.schemas.Thing).toBeUndefined();
  });

  test("when merged, then every $ref points at its own service's component", () => {
    expect(okSchema('/users')).toEqual({ $ref: '#/components/schemas/identity.Thing' });
    expect(okSchema('/articles')).toEqual({ $ref: '#/components/schemas/articles.Thing' });
  });

  test('the shared components (problems, security schemes) keep their names, once', () => {
    expect(Object.keys(doc.components.schemas).sort()).toEqual(['FieldError', 'Problem', 'articles.Thing', 'identity.Thing']);
    expect(doc.components.responses.NotFound).toEqual(baseComponents().responses.NotFound);
    expect(JSON.stringify(doc)).not.toMatch(/identity\.(Problem|NotFound|FieldError)/);
  });

  test('the merged document is valid OpenAPI 3.1', () => {
    expect(validateOpenApiDocument(doc)).toEqual({ valid: true, errors: [] });
  });
});
