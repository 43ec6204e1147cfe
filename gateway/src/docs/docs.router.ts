import express, { type Router } from 'express';
import { mountDocsPage } from './docs-page';
import { createOpenApiSource, type OpenApiSourceOptions } from './openapi-source';

export type DocsRouterOptions = OpenApiSourceOptions;

/**
 * `GET /openapi.json` (the services' parts merged for the routes the gateway serves) and
 * `GET /docs` (Swagger UI). Mount it before the gate, so these paths are not looked up in the
 * policy table.
 */
export function createDocsRouter(options: DocsRouterOptions): Router {
  const router = express.Router();
  const source = createOpenApiSource(options);
  router.get('/openapi.json', async (_req, res) => {
    // The shared bootstrap has set the request id on the response; the upstream calls carry it.
    const requestId = res.getHeader('x-request-id');
    const doc = await source.document(typeof requestId === 'string' ? requestId : undefined);
    res.set('Cache-Control', 'no-cache').json(doc);
  });
  // The root is where a newcomer lands first: point at the docs rather than answer a bare 404.
  router.get('/', (_req, res) => {
    res.json({
      name: 'restgate API',
      docs: '/docs',
      openapi: '/openapi.json',
      message: 'Read and try the API at /docs (Swagger UI); the whole contract as OpenAPI 3.1 is /openapi.json.',
    });
  });
  mountDocsPage(router);
  return router;
}
