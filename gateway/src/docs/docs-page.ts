import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';

/**
 * `GET /docs`: Swagger UI from the `swagger-ui-dist` package, served by the gateway itself (no
 * CDN, works offline), reading `/openapi.json`. Its own CSP replaces helmet's on these routes:
 * scripts and styles from this origin only, no inline script, no eval.
 */

const SWAGGER_UI_DIR = path.dirname(require.resolve('swagger-ui-dist/package.json'));
export const DOCS_ASSET_PATH = '/docs/assets';

/** The only files of the package that the page needs. */
const PACKAGE_ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
  'favicon-16x16.png': 'image/png',
};

export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  // The stylesheet draws its icons as data: SVGs.
  "img-src 'self' data:",
  "font-src 'self' data:",
  // "Try it out" sends requests to this same origin.
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>restgate API</title>
    <link rel="stylesheet" href="${DOCS_ASSET_PATH}/swagger-ui.css">
    <link rel="icon" type="image/png" href="${DOCS_ASSET_PATH}/favicon-32x32.png" sizes="32x32">
    <link rel="icon" type="image/png" href="${DOCS_ASSET_PATH}/favicon-16x16.png" sizes="16x16">
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="${DOCS_ASSET_PATH}/swagger-ui-bundle.js"></script>
    <script src="${DOCS_ASSET_PATH}/docs-init.js"></script>
  </body>
</html>
`;

// A file rather than an inline script, so the CSP needs no 'unsafe-inline' for scripts.
const INIT_SCRIPT = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '/openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    displayRequestDuration: true,
    defaultModelsExpandDepth: 0,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
  });
});
`;

function withDocsHeaders(reply: FastifyReply, type: string): FastifyReply {
  return reply.headers({ 'Content-Security-Policy': DOCS_CSP, 'Content-Type': type, 'X-Content-Type-Options': 'nosniff' });
}

/** Mounts `GET /docs` and its assets on `app`; the package's files are read once, on first request. */
export function mountDocsPage(app: FastifyInstance): void {
  app.get('/docs', async (_request, reply) =>
    withDocsHeaders(reply, 'text/html; charset=utf-8').header('Cache-Control', 'no-cache').send(PAGE),
  );
  app.get(`${DOCS_ASSET_PATH}/docs-init.js`, async (_request, reply) =>
    withDocsHeaders(reply, 'text/javascript; charset=utf-8').header('Cache-Control', 'no-cache').send(INIT_SCRIPT),
  );
  for (const [file, type] of Object.entries(PACKAGE_ASSETS)) {
    let bytes: Buffer | undefined;
    app.get(`${DOCS_ASSET_PATH}/${file}`, async (_request, reply) => {
      bytes ??= readFileSync(path.join(SWAGGER_UI_DIR, file));
      return withDocsHeaders(reply, type).header('Cache-Control', 'public, max-age=3600').send(bytes);
    });
  }
}
