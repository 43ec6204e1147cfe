import {
  addErrorResponses,
  API_VERSION,
  applyAccessLevel,
  baseComponents,
  buildOperation,
  OPENAPI_VERSION,
  openApiPath,
  type AccessLevel,
  type HttpMethod,
  type OpenApiComponents,
  type OpenApiDocument,
  type OpenApiOperation,
} from '@restgate/shared';
import { API_DESCRIPTION } from './api-description';

/** What the docs need of a policy-table row (the gateway's `PolicyRow` fits). */
export interface DocsPolicyRow {
  method: HttpMethod;
  path: string;
  level: AccessLevel;
  /** The service that serves the route; without it, any part that describes the route will do. */
  upstream?: string;
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
  for (const part of Object.values(parts)) mergeComponents(components, part.components);
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
    const found = findPartOperation(parts, row, template);
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
  const why =
    row.upstream && missing.includes(row.upstream)
      ? `The ${row.upstream} service did not answer for its part of this document; try again shortly.`
      : `The ${row.upstream ?? 'upstream'} service does not describe this route.`;
  return { ...operation, description: `${operation.description ?? ''}\n\n${why}`, 'x-restgate-undocumented': true };
}

/** Shared components are the same in every part; a name already taken keeps its first definition. */
function mergeComponents(into: OpenApiComponents, from: Partial<OpenApiComponents> | undefined): void {
  for (const kind of ['schemas', 'securitySchemes', 'responses', 'headers'] as const) {
    for (const [name, value] of Object.entries(from?.[kind] ?? {})) {
      (into[kind] as Record<string, unknown>)[name] ??= value;
    }
  }
}
