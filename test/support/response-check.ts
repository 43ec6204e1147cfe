/**
 * Keeps the OpenAPI document honest: every response a contract test got from the gateway must be
 * one the gateway's own `GET /openapi.json` describes (status, content type, body schema).
 * startTestStack fetches the document when the stack is up, records what the tests' clients
 * exchange with it (test/support/http.ts), and runs `checkExchanges` when the stack stops.
 */
import { OPERATIONS_PATHS } from '@restgate/shared/http';
import type { OpenApiDocument } from '@restgate/shared/openapi';
import { findOperation, responseMatches } from '@restgate/shared/testing';
import type { Exchange } from './http';

/**
 * Paths the gateway answers that are not API operations, so the document rightly leaves them
 * out: its operations endpoints (/health, /ready, /metrics), the document itself and the docs page.
 */
export function isNotAnOperation(path: string): boolean {
  return (
    (OPERATIONS_PATHS as readonly string[]).includes(path) || path === '/openapi.json' || path === '/docs' || path.startsWith('/docs/')
  );
}

/**
 * A method + path that no operation has gets the gateway's own 404 `route_not_found` (or 405
 * `method_not_allowed` on a known path): that answer, and nothing else, is fine there.
 */
function unroutedProblems(exchange: Exchange): string[] {
  const body = exchange.body as { code?: unknown } | undefined;
  const expected = exchange.status === 404 ? 'route_not_found' : exchange.status === 405 ? 'method_not_allowed' : undefined;
  if (expected && /^application\/problem\+json/.test(exchange.contentType ?? '') && body?.code === expected) return [];
  return [`${exchange.method} ${exchange.path} → ${exchange.status}: no operation in the document for ${exchange.method} ${exchange.path}`];
}

interface Finding {
  where: string;
  problems: string[];
  body: unknown;
  tests: Set<string>;
}

const excerpt = (body: unknown) => {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return text === undefined ? '(empty)' : text.length > 300 ? `${text.slice(0, 300)}…` : text;
};

/**
 * The exchanges that do not match `doc`, as one readable report (undefined when all match).
 * The same mismatch from several tests is listed once, with every test that met it.
 */
export function checkExchanges(doc: OpenApiDocument, exchanges: readonly Exchange[]): string | undefined {
  const findings = new Map<string, Finding>();
  let checked = 0;
  for (const exchange of exchanges) {
    if (isNotAnOperation(exchange.path)) continue;
    checked += 1;
    const found = findOperation(doc, exchange.method, exchange.path);
    const problems = found
      ? responseMatches(doc, exchange.method, exchange.path, exchange.status, exchange.contentType, exchange.body).problems
      : unroutedProblems(exchange);
    if (problems.length === 0) continue;
    const where = `${exchange.method} ${found?.template ?? exchange.path} → ${exchange.status}`;
    // Concrete ids and tokens differ from test to test; the template and the problem do not.
    const key = `${where}\n${problems.map((p) => p.replace(/^[^:]*: /, '')).join('\n')}`;
    const finding = findings.get(key) ?? { where, problems, body: exchange.body, tests: new Set<string>() };
    finding.tests.add(exchange.test);
    findings.set(key, finding);
  }
  if (findings.size === 0) return undefined;
  const lines = [...findings.values()].flatMap((f) => [
    `  ✕ ${f.where}`,
    ...f.problems.map((p) => `      ${p}`),
    `      body: ${excerpt(f.body)}`,
    ...[...f.tests].map((t) => `      in: ${t}`),
  ]);
  return [
    `${findings.size} kind(s) of response, among the ${checked} checked, do not match the gateway's GET /openapi.json:`,
    ...lines,
    "Fix the document's source — the route's `responses` in services/*/src/http/*.routes.ts, or the shared error " +
      'responses in shared/src/openapi/ — or the code, when it is the code that breaks the contract.',
  ].join('\n');
}
