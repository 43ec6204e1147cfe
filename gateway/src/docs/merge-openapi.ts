import type { AccessLevel, HttpMethod, RouteSpec } from '@restgate/shared/http';
import {
  addErrorResponses,
  API_VERSION,
  applyAccessLevel,
  baseComponents,
  buildOperation,
  OPENAPI_VERSION,
  openApiPath,
  type OpenApiComponents,
  type OpenApiDocument,
  type OpenApiOperation,
} from '@restgate/shared/openapi';
import { API_DESCRIPTION } from './api-description';

/** What the docs need of a policy-table row (the gateway's `PolicyRow` fits). */
export interface DocsPolicyRow {
  method: HttpMethod;
  path: string;
  level: AccessLevel;
  /** The service that serves the route; without it, any part that describes the route will do. */
  upstream?: string;
  /** The route's spec from the service's src/api.ts, for a route the running service does not describe. */
  spec?: RouteSpec;
}

export interface MergeOptions {
  /** Upstreams whose part could not be had: their routes get placeholders that say so. */
  missing?: string[];
  title?: string;
}

/** Errors the gateway itself adds to every route, on top of what the services answer. */
const GATEWAY_ERRORS = [400, 429, 500, 502, 503, 504];
/** The gateway reads bodies (to find `access_token`), so any body can be too large or of the wrong type. */
const BODY_ERRORS = [413, 415];
const BODY_METHODS: readonly HttpMethod[] = ['post', 'put', 'patch'];

/**
 * Merges the services' parts into the document the gateway serves: exactly the routes of the
 * policy table, each with the level in force at the gateway, plus the gateway's own errors.
 * A route no part describes still appears, marked `x-restgate-undocumented`.
 */
export function mergeOpenApi(
  parts: Record<string, OpenApiDocument>,
  policy: readonly DocsPolicyRow[],
  options: MergeOptions = {},
): OpenApiDocument {
  const components = baseComponents();
  const own = Object.fromEntries(Object.entries(parts).map(([upstream, part]) => [upstream, namespaced(upstream, part, components)]));
  const doc: OpenApiDocument = {
    openapi: OPENAPI_VERSION,
    info: { title: options.title ?? 'restgate API', version: API_VERSION, description: API_DESCRIPTION },
    servers: [{ url: '/' }],
    tags: [],
    paths: {},
    components,
  };
  for (const row of policy) {
    const template = openApiPath(row.path);
    const found = findPartOperation(own, row, template);
    let operation: MergedOperation = found
      ? applyAccessLevel(structuredClone(found.operation), row.level)
      : placeholder(row, components, options.missing ?? []);
    operation = addErrorResponses(operation, BODY_METHODS.includes(row.method) ? [...GATEWAY_ERRORS, ...BODY_ERRORS] : GATEWAY_ERRORS);
    if (found) operation['x-restgate-upstream'] = found.upstream;
    (doc.paths[template] ??= {})[row.method] = operation;
    for (const tag of operation.tags ?? []) if (!doc.tags!.some((t) => t.name === tag)) doc.tags!.push({ name: tag });
  }
  if (options.missing?.length) doc['x-restgate-missing-upstreams'] = options.missing;
  return doc;
}

type MergedOperation = OpenApiOperation & { 'x-restgate-upstream'?: string };

function findPartOperation(parts: Record<string, OpenApiDocument>, row: DocsPolicyRow, template: string) {
  const names = row.upstream ? [row.upstream] : Object.keys(parts);
  for (const upstream of names) {
    const operation = parts[upstream]?.paths[template]?.[row.method];
    if (operation) return { upstream, operation };
  }
  return undefined;
}

/** A route the gateway serves but no part describes: still listed, with what the gateway knows. */
function placeholder(row: DocsPolicyRow, components: OpenApiComponents, missing: string[]): MergedOperation {
  const unanswered = row.upstream !== undefined && missing.includes(row.upstream);
  if (row.spec && !unanswered) {
    // Switched off in this deployment (a social provider not enabled): described from its spec,
    // whose summary and 404 say what the route answers now and what turns it on.
    const described = buildOperation({ ...row.spec, level: row.level, handler: async () => ({ status: 500 }) }, components);
    return { ...switchedOff(described), 'x-restgate-undocumented': true };
  }
  const operation = buildOperation(
    {
      method: row.method,
      path: row.path,
      level: row.level,
      summary: `${row.method.toUpperCase()} ${row.path} (not described)`,
      // A service answers a route it has not got (a social provider it has not enabled, say) with a 404.
      responses: { 404: { description: 'The service does not serve this route (at the moment).' } },
      handler: async () => ({ status: 500 }),
    },
    components,
  );
  const why = unanswered
    ? `The ${row.upstream} service did not answer for its part of this document; try again shortly.`
    : `The ${row.upstream ?? 'upstream'} service does not describe this route.`;
  return { ...operation, description: `${operation.description ?? ''}\n\n${why}`, 'x-restgate-undocumented': true };
}

/**
 * A route that is off answers as it does now, whatever the credential: 404 (and the errors of
 * the body and the gateway, added later), never its sign-in answers or a 401, and it asks for
 * no credential. Its description still says what the route does once enabled.
 */
function switchedOff(operation: OpenApiOperation): OpenApiOperation {
  const responses = Object.fromEntries(Object.entries(operation.responses).filter(([status]) => SWITCHED_OFF_ANSWERS.includes(status)));
  const note = '**Not enabled in this deployment:** every request answers 404 `route_not_found`.';
  return {
    ...operation,
    description: `${note}${operation.description ? `\n\n${operation.description}` : ''}`,
    security: [],
    responses,
  };
}

const SWITCHED_OFF_ANSWERS = ['400', '404', '413', '415', '500', '503'];

const COMPONENT_KINDS = ['schemas', 'securitySchemes', 'responses', 'headers'] as const;

/**
 * The part with its own components renamed `<upstream>.<name>` (every `$ref` to them rewritten),
 * and those components added to `into`. Components equal to the shared ones (problems, security
 * schemes, headers) keep their names, so two services can never overwrite each other's schemas.
 */
function namespaced(upstream: string, part: OpenApiDocument, into: OpenApiComponents): OpenApiDocument {
  const shared = baseComponents();
  const renamed = new Map<string, string>();
  const own: Array<{ kind: (typeof COMPONENT_KINDS)[number]; name: string; value: unknown }> = [];
  for (const kind of COMPONENT_KINDS) {
    for (const [name, value] of Object.entries(part.components?.[kind] ?? {})) {
      if (sameJson((shared[kind] as Record<string, unknown>)[name], value)) continue;
      const newName = `${upstream}.${name}`;
      renamed.set(`#/components/${kind}/${name}`, `#/components/${kind}/${newName}`);
      own.push({ kind, name: newName, value });
    }
  }
  if (renamed.size === 0) return part;
  const rewrite = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(rewrite);
    if (!value || typeof value !== 'object') return value;
    return Object.fromEntries(
      Object.entries(value).map(([key, v]) => [key, key === '$ref' && typeof v === 'string' ? (renamed.get(v) ?? v) : rewrite(v)]),
    );
  };
  for (const { kind, name, value } of own) (into[kind] as Record<string, unknown>)[name] = rewrite(value);
  return { ...part, paths: rewrite(part.paths) as OpenApiDocument['paths'] };
}

/** Equal as JSON, whatever the key order (a part arrives parsed from JSON, with its own prototypes). */
function sameJson(a: unknown, b: unknown): boolean {
  const sorted = (_key: string, value: unknown) =>
    value && typeof value === 'object' && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)))
      : value;
  return a !== undefined && JSON.stringify(a, sorted) === JSON.stringify(b, sorted);
}
