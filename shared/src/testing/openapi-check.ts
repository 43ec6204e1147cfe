import { execFileSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import Ajv2020 from 'ajv/dist/2020';
import type { OpenApiDocument, OpenApiOperation, OpenApiResponse } from '../openapi/types';

/**
 * Checks against the OpenAPI document, for tests: is the document valid OpenAPI 3.1, and does
 * a response the API really sent match what the document says (status, content type, body)?
 */

export interface OpenApiValidation {
  valid: boolean;
  errors: unknown[];
}

/**
 * Validates `doc` with `@seriousme/openapi-schema-validator` (a root dev dependency). That
 * library is ESM-only and jest runs CommonJS, so it runs in a child Node process.
 */
export function validateOpenApiDocument(doc: unknown): OpenApiValidation {
  const entry = pathToFileURL(require.resolve('@seriousme/openapi-schema-validator')).href;
  const script = `
    import { Validator } from ${JSON.stringify(entry)};
    let input = '';
    process.stdin.setEncoding('utf8');
    for await (const chunk of process.stdin) input += chunk;
    const result = await new Validator().validate(JSON.parse(input));
    process.stdout.write(JSON.stringify({ valid: result.valid, errors: result.errors ?? [] }));
  `;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    input: JSON.stringify(doc),
    encoding: 'utf8',
    timeout: 30_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  return JSON.parse(out) as OpenApiValidation;
}

export interface ResponseCheck {
  ok: boolean;
  /** What does not match, in words; empty when `ok`. */
  problems: string[];
}

const DOC_ID = 'urn:restgate:openapi';
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;

/** The formats our schemas use; anything else is accepted (annotation only). */
const FORMATS = {
  'date-time': (value: string) => ISO_DATE_TIME.test(value) && !Number.isNaN(Date.parse(value)),
  email: /^[^\s@]+@[^\s@]+$/,
  uri: (value: string) => {
    try {
      return new URL(value).protocol.length > 1;
    } catch {
      return false;
    }
  },
  uuid: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i,
};

const validators = new WeakMap<object, Ajv2020>();

function ajvFor(doc: OpenApiDocument): Ajv2020 {
  let ajv = validators.get(doc);
  if (!ajv) {
    ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false, logger: false, formats: FORMATS });
    ajv.addSchema(doc as object, DOC_ID);
    validators.set(doc, ajv);
  }
  return ajv;
}

const escapePointer = (part: string) => part.replace(/~/g, '~0').replace(/\//g, '~1');
const pointer = (parts: string[]) => `#/${parts.map(escapePointer).join('/')}`;

/**
 * The document's path template and operation for a concrete request path. A literal segment
 * beats a parameter (`/users/me` before `/users/{id}`), for every method, as OpenAPI matches
 * paths: a method the concrete path lacks is not found under the templated one.
 */
export function findOperation(
  doc: OpenApiDocument,
  method: string,
  path: string,
): { template: string; operation: OpenApiOperation } | undefined {
  const pathname = path.split('?')[0] ?? path;
  const candidates = Object.keys(doc.paths)
    .map((template) => {
      const pattern = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^/}]+\}/g, '[^/]+');
      return { template, regex: new RegExp(`^${pattern}$`), params: (template.match(/\{/g) ?? []).length };
    })
    .filter((c) => c.regex.test(pathname))
    .sort((a, b) => a.params - b.params);
  const template = candidates[0]?.template;
  const operation = template === undefined ? undefined : doc.paths[template]?.[method.toLowerCase() as keyof (typeof doc.paths)[string]];
  return template !== undefined && operation ? { template, operation } : undefined;
}

function resolveResponse(
  doc: OpenApiDocument,
  response: OpenApiResponse | { $ref: string },
  location: string[],
): { response: OpenApiResponse; location: string[] } {
  if ('$ref' in response) {
    const name = response.$ref.replace('#/components/responses/', '');
    const target = doc.components.responses[name];
    if (!target) throw new Error(`openapi-check: unresolved ${response.$ref}`);
    return { response: target, location: ['components', 'responses', name] };
  }
  return { response, location };
}

const mediaTypeOf = (contentType: string | undefined) => (contentType ?? '').split(';')[0]!.trim().toLowerCase();

const isEmptyBody = (body: unknown) =>
  body === undefined || body === null || body === '' || (typeof body === 'object' && Object.keys(body as object).length === 0);

/**
 * Does a response match the document? `path` is the concrete request path (a query string is
 * ignored); `contentType` the response's header; `body` the parsed body (as supertest gives it).
 */
export function responseMatches(
  doc: OpenApiDocument,
  method: string,
  path: string,
  status: number,
  contentType: string | undefined,
  body: unknown,
): ResponseCheck {
  const where = `${method.toUpperCase()} ${path} → ${status}`;
  const found = findOperation(doc, method, path);
  if (!found) return { ok: false, problems: [`${where}: no operation in the document for ${method.toUpperCase()} ${path}`] };
  const { template, operation } = found;
  const statusKey = [String(status), `${String(status)[0]}XX`, 'default'].find((key) => key in operation.responses);
  if (!statusKey) {
    return {
      ok: false,
      problems: [`${where}: status ${status} is not documented (documented: ${Object.keys(operation.responses).join(', ')})`],
    };
  }
  const { response, location } = resolveResponse(doc, operation.responses[statusKey]!, [
    'paths',
    template,
    method.toLowerCase(),
    'responses',
    statusKey,
  ]);
  const mediaType = mediaTypeOf(contentType);
  const content = response.content ?? {};
  if (Object.keys(content).length === 0) {
    return mediaType && !isEmptyBody(body)
      ? { ok: false, problems: [`${where}: the document describes no body, but got ${mediaType}`] }
      : { ok: true, problems: [] };
  }
  const documented = Object.keys(content).find(
    (key) => key.toLowerCase() === mediaType || (key.endsWith('/*') && mediaType.startsWith(key.slice(0, -1))),
  );
  if (!documented) {
    return {
      ok: false,
      problems: [`${where}: content type "${contentType ?? ''}" is not documented (documented: ${Object.keys(content).join(', ')})`],
    };
  }
  if (!content[documented]?.schema) return { ok: true, problems: [] };
  const validate = ajvFor(doc).getSchema(`${DOC_ID}${pointer([...location, 'content', documented, 'schema'])}`);
  if (!validate) return { ok: false, problems: [`${where}: cannot compile the schema of ${documented}`] };
  if (validate(body)) return { ok: true, problems: [] };
  return {
    ok: false,
    problems: (validate.errors ?? []).map(
      (e) => `${where}: body${e.instancePath} ${e.message ?? 'is invalid'} ${JSON.stringify(e.params)}`,
    ),
  };
}
