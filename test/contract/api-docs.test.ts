/**
 * The API docs of the whole stack: GET /openapi.json describes exactly the routes the gateway
 * serves (its policy table), each one by the service behind it, and is valid OpenAPI 3.1; GET
 * /docs renders it in headless Chromium. (That every response matches the document is checked
 * for every contract test file by test/support/stack.ts.)
 *
 * Every social provider is enabled here: identity describes only the providers it serves, and
 * this file wants every routed operation described by its service. With a provider off, the
 * gateway lists its route itself, marked `x-restgate-undocumented`, answering 404.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { openApiPath, type OpenApiDocument, type OpenApiOperation } from '@restgate/shared/openapi';
import { findOperation, validateOpenApiDocument } from '@restgate/shared/testing';
import { POLICY_ROWS as POLICY_TABLE } from '../../gateway/test/support/routes';
import { realtimeApi } from '../../gateway/src/realtime/api';
import { aSignedInUser } from '../support/actors';
import { CHROMIUM, launchChromium } from '../support/browser';
import { client, type Client, type Reply } from '../support/http';
import { startTestStack, type TestStack } from '../support/stack';

const CHECK_DOCS_PAGE = path.resolve(__dirname, '..', '..', 'scripts', 'check-docs-page.cjs');
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
/** A value of the right shape for each path parameter, so that only the route decides the answer. */
const PARAM_VALUES: Record<string, string> = { id: '0123456789abcdef01234567', token: 'A'.repeat(43) };

let stack: TestStack;
let api: Client;
let doc: OpenApiDocument;

beforeAll(async () => {
  stack = await startTestStack({ env: { SOCIAL_PROVIDERS: 'facebook,github,google' } });
  api = client(stack.url);
  const reply = await api.get('/openapi.json');
  if (reply.status !== 200) throw new Error(`GET /openapi.json answered ${reply.status}: ${reply.text.slice(0, 500)}`);
  doc = reply.body as OpenApiDocument;
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

const operations = () =>
  Object.entries(doc.paths).flatMap(([template, item]) =>
    Object.entries(item).map(([method, operation]) => ({
      key: `${method.toUpperCase()} ${template}`,
      operation: operation as OpenApiOperation & { 'x-restgate-upstream'?: string },
    })),
  );

const concrete = (template: string) => template.replace(/\{(\w+)\}/g, (_m, name: string) => PARAM_VALUES[name] ?? 'x');

/** The gateway's own answer for a method + path it does not route. */
const isUnrouted = (reply: Reply) =>
  (reply.status === 404 && reply.body?.code === 'route_not_found') || (reply.status === 405 && reply.body?.code === 'method_not_allowed');

describe('GET /openapi.json', () => {
  test('when fetched from the gateway, then it is valid OpenAPI 3.1, served as JSON', async () => {
    const reply = await api.get('/openapi.json');

    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
    expect(validateOpenApiDocument(reply.body)).toEqual({ valid: true, errors: [] });
  });

  test("when compared with the gateway's policy table, then its operations are exactly the table's rows, each at the row's level and from the row's service", () => {
    // The table's rows, and the routes the gateway serves itself (realtime).
    const fromTable = [...POLICY_TABLE, ...Object.values(realtimeApi).map((spec) => ({ ...spec, upstream: 'gateway' }))].map((row) => ({
      key: `${row.method.toUpperCase()} ${openApiPath(row.path)}`,
      level: row.level,
      upstream: row.upstream,
    }));
    const fromDoc = operations().map(({ key, operation }) => ({
      key,
      level: operation['x-restgate-level'],
      upstream: operation['x-restgate-upstream'],
    }));

    const byKey = (a: { key: string }, b: { key: string }) => a.key.localeCompare(b.key);
    expect(fromDoc.sort(byKey)).toEqual(fromTable.sort(byKey));
  });

  test('when every service is up, then every operation is described by its service: none is a gateway placeholder', () => {
    const undocumented = operations()
      .filter(({ operation }) => operation['x-restgate-undocumented'])
      .map(({ key }) => key);

    expect(doc['x-restgate-missing-upstreams']).toBeUndefined();
    expect(undocumented).toEqual([]);
  });

  test('when each method is tried on each path of the document, then the gateway routes exactly the documented operations', async () => {
    const mismatches: string[] = [];

    for (const template of Object.keys(doc.paths)) {
      const path = concrete(template);
      for (const method of METHODS) {
        // No credential and no body: the gateway decides routing before anything else.
        const reply = await api.request(method, path);
        const documented = findOperation(doc, method, path) !== undefined;
        const routed = !isUnrouted(reply);
        if (documented !== routed) {
          mismatches.push(
            `${method} ${path}: ${documented ? 'documented' : 'not documented'}, but ${reply.status} ${reply.body?.code ?? ''}`,
          );
        }
      }
    }

    expect(mismatches).toEqual([]);
  });

  test('when a path is in no row of the table, then it is not in the document, and the gateway answers 404 route_not_found', async () => {
    const reply = await api.get('/no-such-resource');

    expect(findOperation(doc, 'GET', '/no-such-resource')).toBeUndefined();
    expect(reply.status).toBe(404);
    expect(reply.body.code).toBe('route_not_found');
  });
});

describe('GET /docs', () => {
  test('when loaded in headless Chromium, then Swagger UI shows every operation, offline, with no script error or CSP violation', async () => {
    if (!fs.existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: npm test installs it (apt-get install chromium)`);

    const result = await new Promise<{ code: number; output: string }>((resolve) => {
      execFile(process.execPath, [CHECK_DOCS_PAGE, stack.url, '--timeout', '90000'], { timeout: 100_000 }, (err, stdout, stderr) => {
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, output: `${stdout}${stderr}` });
      });
    });

    // The script's own report is the useful failure message.
    expect(result).toEqual({ code: 0, output: expect.stringContaining('docs page OK') });
    expect(result.output).toMatch(new RegExp(`${operations().length}/${operations().length} expected summaries visible`));
  }, 120_000);

  test("when an admin's token is given once to Authorize (userToken), then Try it out on GET /users sends it as Bearer and gets 200", async () => {
    const admin = await aSignedInUser(api, stack, { role: 'admin' });
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      await page.goto(`${stack.url}/docs`);
      await page.locator('.btn.authorize').first().click();
      const scheme = page.locator('.auth-container', { hasText: 'userToken' });
      await scheme.locator('input').fill(admin.token);
      await scheme.locator('button.authorize').click();
      await page.locator('.btn-done, button.close-modal').first().click();
      const operation = page.locator('#operations-users-getUsers');
      await operation.locator('.opblock-summary').click();
      await operation.locator('.try-out__btn').click();
      const [sent] = await Promise.all([
        page.waitForRequest((r) => r.method() === 'GET' && new URL(r.url()).pathname === '/users'),
        operation.locator('.execute').click(),
      ]);
      const answered = await sent.response();

      expect(sent.headers().authorization).toBe(`Bearer ${admin.token}`);
      expect(new URL(sent.url()).searchParams.has('access_token')).toBe(false);
      expect(answered?.status()).toBe(200);
    } finally {
      await browser.close();
    }
  }, 120_000);
});
