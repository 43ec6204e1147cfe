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
  mountDocsPage(router);
  return router;
}
