import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Joi from 'joi';
import { createLogger, createMetrics } from '@restgate/shared';
import { createHttpApp, defineRoute, listen, type RouteDef, type RunningServer } from '@restgate/shared/http';
import { listingQuerySchema } from '@restgate/shared/data';
import { TEST_PRINCIPAL_SECRET } from '@restgate/shared/testing';
import { asListener, gatewayFastify } from '../src/app';
import { mountDocs, type DocsPolicyRow } from '../src/docs';

/**
 * `/docs` in a real browser: Debian's Chromium, driven by scripts/check-docs-page.cjs (the same
 * check CI can run against the whole stack), must render every operation of the document with
 * no script error, no CSP violation and no request leaving the origin.
 */
const CHROMIUM = '/usr/bin/chromium';
const CHECK_SCRIPT = path.resolve(__dirname, '..', '..', 'scripts', 'check-docs-page.cjs');
const logger = createLogger({ name: 'docs-page-test', level: 'silent' });
const ok = async () => ({ status: 200 });

const routes: RouteDef[] = [
  defineRoute({
    method: 'post',
    path: '/widgets',
    level: 'user',
    summary: 'Create a widget.',
    schemas: { body: Joi.object({ name: Joi.string().max(50).required().example('Sprocket') }) },
    responses: { 201: { description: 'The widget.', schema: Joi.object({ id: Joi.string(), name: Joi.string() }) } },
    handler: ok,
  }),
  defineRoute({
    method: 'get',
    path: '/widgets',
    level: 'public',
    summary: 'List widgets.',
    schemas: { query: listingQuerySchema({ searchable: ['name'], sortable: ['name'], selectable: ['name'] }) },
    handler: ok,
  }),
  defineRoute({
    method: 'delete',
    path: '/widgets/:id',
    level: 'admin',
    summary: 'Delete a widget.',
    responses: { 204: { description: 'Deleted.' } },
    handler: ok,
  }),
];
const policy: DocsPolicyRow[] = routes.map(({ method, path: p, level }) => ({ method, path: p, level, upstream: 'widgets' }));

function runCheck(url: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CHECK_SCRIPT, url, '--timeout', '60000'], { timeout: 90_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, output: `${stdout}${stderr}` });
    });
  });
}

describe('GET /docs in headless Chromium', () => {
  let service: RunningServer;
  let gateway: RunningServer;

  beforeAll(async () => {
    if (!fs.existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium)`);
    service = await listen(createHttpApp({ logger, routes, principalSecret: TEST_PRINCIPAL_SECRET, name: 'widgets' }), 0, '127.0.0.1');
    // The gateway's fastify bootstrap with only the docs on it.
    const app = gatewayFastify({ logger, redact: (url) => url, metrics: createMetrics() });
    mountDocs(app, { upstreams: { widgets: service.url }, policy, logger });
    gateway = await listen(asListener(app, logger), 0, '127.0.0.1');
  });

  afterAll(async () => {
    await Promise.all([gateway?.stop(1_000), service?.stop(1_000)]);
  });

  test('when the page loads, then Swagger UI shows every operation of the document, offline and within its CSP', async () => {
    const { code, output } = await runCheck(gateway.url);

    expect(output).toContain('3/3 expected summaries visible');
    expect([code, output]).toEqual([0, expect.stringContaining('docs page OK')]);
  }, 120_000);
});
