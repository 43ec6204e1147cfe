import type { FastifyInstance } from 'fastify';
import { requestIdOf } from '@restgate/shared/http';
import { mountDocsPage } from './docs-page';
import { createOpenApiSource, type OpenApiSourceOptions } from './openapi-source';

export type DocsRouterOptions = OpenApiSourceOptions;

/**
 * `GET /openapi.json` (the services' parts merged for the routes the gateway serves), `GET /docs`
 * (Swagger UI) and `GET /`, as routes of `app`: fastify's router finds them before the catch-all
 * that looks paths up in the policy table.
 */
export function mountDocs(app: FastifyInstance, options: DocsRouterOptions): void {
  const source = createOpenApiSource(options);
  app.get('/openapi.json', async (request, reply) => {
    // The upstream calls carry the request's id.
    const doc = await source.document(requestIdOf(request.raw));
    return reply.header('Cache-Control', 'no-cache').type('application/json; charset=utf-8').send(JSON.stringify(doc));
  });
  // The root is where a newcomer lands first: point at the docs rather than answer a bare 404.
  app.get('/', async (_request, reply) =>
    reply.type('application/json; charset=utf-8').send(
      JSON.stringify({
        name: 'restgate API',
        docs: '/docs',
        openapi: '/openapi.json',
        message: 'Read and try the API at /docs (Swagger UI); the whole contract as OpenAPI 3.1 is /openapi.json.',
      }),
    ),
  );
  mountDocsPage(app);
}
