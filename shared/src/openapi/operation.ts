import type Joi from 'joi';
import { LISTING_LIMITS } from '../data/listing';
import type { HttpMethod, RouteDef } from '../http/routes';
import { applyAccessLevel } from './access';
import { DEPENDS_NOTE, allowUnknown, joiToJsonSchema } from './joi-schema';
import { addErrorResponses, errorDescription, errorResponse } from './responses';
import {
  isObject,
  ref,
  type JsonSchema,
  type OpenApiComponents,
  type OpenApiMediaType,
  type OpenApiOperation,
  type OpenApiParameter,
  type OpenApiResponse,
} from './types';

/** One route-table row as an operation: its path and query parameters, request body and responses. */

const BODY_CONTENT_TYPES = ['application/x-www-form-urlencoded', 'application/json'] as const;
const HTML_MEDIA_TYPE = 'text/html';
const HTML_PAGE: OpenApiMediaType = { schema: { type: 'string', description: 'An HTML page, for a browser.' } };
const NDJSON_MEDIA_TYPE = 'application/x-ndjson';
const NDJSON_LINES: OpenApiMediaType = { schema: { type: 'string', description: 'One JSON object per line (NDJSON), streamed.' } };

/** `/users/:id/password` → `/users/{id}/password`. */
export function openApiPath(expressPath: string): string {
  return expressPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

function pathParamNames(expressPath: string): string[] {
  return [...expressPath.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]!);
}

function operationId(method: HttpMethod, expressPath: string): string {
  const words = expressPath
    .split('/')
    .filter(Boolean)
    .map((segment) => (segment.startsWith(':') ? `By-${segment.slice(1)}` : segment))
    .flatMap((segment) => segment.split(/[^A-Za-z0-9]+/))
    .filter(Boolean);
  return method + words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
}

function firstExample(schema: JsonSchema): unknown {
  return Array.isArray(schema.examples) && schema.examples.length > 0 ? schema.examples[0] : undefined;
}

/** Listing parameters are built by `listingQuerySchema`; these say what its custom rules do. */
const LISTING_PARAM_TEXT: Record<string, string> = {
  q: `Case-insensitive substring search over the resource's searchable fields; regex characters are literal. At most ${LISTING_LIMITS.maxQ} characters.`,
  page: `1-based page number, at most ${LISTING_LIMITS.maxPage} (a fixed maximum; past it, follow \`after\` cursors). Not with \`after\`.`,
  limit: `Page size, 1 to ${LISTING_LIMITS.maxLimit}.`,
  sort: 'Comma list of sortable fields; `-` before a field sorts descending. A field that is not allowed is a 400 naming `sort`.',
  fields: 'Comma list of fields to return (`id` always comes back). A field that is not allowed is a 400 naming `fields`.',
  after:
    'An opaque cursor from the `Link: <…>; rel="next"` of the previous answer: the page after it. Only with the sort, filters and `q` it was made for, and not with `page`; a forged or foreign cursor is a 400 naming `after`.',
  count: '`false` leaves the total out (no `count` in the body, no `X-Total-Count`, no `last` link): cheaper on a large collection.',
};

function isListing(query: JsonSchema | undefined): boolean {
  return isObject(query?.properties) && 'page' in query.properties && 'limit' in query.properties;
}

function parametersOf(route: RouteDef, components: OpenApiComponents): { parameters: OpenApiParameter[]; listing: boolean } {
  const parameters: OpenApiParameter[] = [];
  const params = route.schemas?.params ? joiToJsonSchema(route.schemas.params, components, { request: true }) : undefined;
  for (const name of pathParamNames(route.path)) {
    const schema = (
      isObject(params?.properties) && isObject(params.properties[name]) ? params.properties[name] : { type: 'string' }
    ) as JsonSchema;
    parameters.push(parameter(name, 'path', true, schema));
  }
  const query = route.schemas?.query ? joiToJsonSchema(route.schemas.query, components, { request: true }) : undefined;
  const listing = isListing(query);
  const required = new Set(Array.isArray(query?.required) ? (query.required as string[]) : []);
  for (const [name, schema] of Object.entries(isObject(query?.properties) ? query.properties : {})) {
    // A listing's catch-all for unknown parameters (a joi pattern key, which refuses them) is no parameter.
    if (name.startsWith('/')) continue;
    const param = parameter(name, 'query', required.has(name), schema as JsonSchema);
    // The listing text already says what the notes about reference-bound limits would.
    const ownText = param.description?.replace(DEPENDS_NOTE, '').trim();
    if (listing && !ownText && LISTING_PARAM_TEXT[name]) param.description = LISTING_PARAM_TEXT[name];
    parameters.push(param);
  }
  return { parameters, listing };
}

function parameter(name: string, where: 'path' | 'query', required: boolean, schema: JsonSchema): OpenApiParameter {
  const { description, ...rest } = schema;
  const param: OpenApiParameter = { name, in: where, required, schema: rest };
  if (typeof description === 'string') param.description = description;
  const example = firstExample(schema);
  if (example !== undefined) param.example = example;
  return param;
}

/** Whether `{}` breaks the body schema (a required key, or "at least one of" as `anyOf` of required keys): then so does no body. */
function refusesEmpty(schema: JsonSchema): boolean {
  const needs = (s: unknown) => isObject(s) && Array.isArray(s.required) && s.required.length > 0;
  const allNeed = (list: unknown) => Array.isArray(list) && list.length > 0 && list.every(needs);
  // joi's `xor` comes out as `if … then: false, else: { oneOf: [required a, required b] }`: an empty body fails both.
  return needs(schema) || allNeed(schema.anyOf) || allNeed(schema.oneOf) || (isObject(schema.else) && allNeed(schema.else.oneOf));
}

function requestBodyOf(route: RouteDef, components: OpenApiComponents): OpenApiOperation['requestBody'] {
  if (!route.schemas?.body) return undefined;
  const schema = allowUnknown(joiToJsonSchema(route.schemas.body, components, { request: true })) as JsonSchema;
  const example = firstExample(schema);
  const media: OpenApiMediaType = example === undefined ? { schema } : { schema, example };
  return {
    required: refusesEmpty(schema),
    content: Object.fromEntries(BODY_CONTENT_TYPES.map((type) => [type, media])),
  };
}

function successResponse(
  description: string,
  schema: Joi.Schema | undefined,
  listing: boolean,
  components: OpenApiComponents,
  tagged = false,
): OpenApiResponse {
  const response: OpenApiResponse = { description, headers: { 'X-Request-Id': ref('headers', 'RequestId') } };
  if (listing) Object.assign(response.headers!, { 'X-Total-Count': ref('headers', 'XTotalCount'), Link: ref('headers', 'Link') });
  if (tagged) Object.assign(response.headers!, { ETag: ref('headers', 'ETag') });
  if (schema) {
    const json = joiToJsonSchema(schema, components);
    const example = firstExample(json);
    response.content = { 'application/json': example === undefined ? { schema: json } : { schema: json, example } };
  }
  return response;
}

/** The operation for one route-table row. */
export function buildOperation(route: RouteDef, components: OpenApiComponents): OpenApiOperation {
  const { parameters, listing } = parametersOf(route, components);
  const requestBody = requestBodyOf(route, components);
  const declared = Object.entries(route.responses ?? {});
  const responses: OpenApiOperation['responses'] = {};
  // A route that answers 304 or 412 is conditional: its 2xx answers carry the ETag.
  const conditional = declared.some(([status]) => status === '304' || status === '412');
  for (const [status, doc] of declared) {
    const response =
      Number(status) < 400
        ? successResponse(
            doc.description ?? '',
            doc.schema,
            listing && status !== '304',
            components,
            conditional && status.startsWith('2') && !listing,
          )
        : errorResponse(status, errorDescription(doc), doc.schema, components);
    if (route.noStore && !('$ref' in response)) response.headers = { ...response.headers, 'Cache-Control': ref('headers', 'CacheControl') };
    const media = { ...(doc.html ? { [HTML_MEDIA_TYPE]: HTML_PAGE } : {}), ...(doc.ndjson ? { [NDJSON_MEDIA_TYPE]: NDJSON_LINES } : {}) };
    responses[status] =
      Object.keys(media).length > 0 && !('$ref' in response) ? { ...response, content: { ...response.content, ...media } } : response;
  }
  if (!declared.some(([status]) => Number(status) < 400)) responses['2XX'] = { description: 'Success.' };
  const derived: number[] = [500, 503];
  if (route.schemas?.body || route.schemas?.query || route.schemas?.params) derived.push(400);
  if (pathParamNames(route.path).length > 0) derived.push(404);
  if (requestBody) derived.push(413, 415);
  if (route.schemas?.query) responses['431'] = ref('responses', 'QueryTooLong');
  const operation: OpenApiOperation = {
    operationId: operationId(route.method, route.path),
    summary: route.summary,
    ...(route.description || route.rule
      ? { description: [route.description, route.rule && `Rule: \`${route.rule}\` (docs/api.md, "Rules").`].filter(Boolean).join('\n\n') }
      : {}),
    tags: route.tags ?? [route.path.split('/').filter(Boolean)[0] ?? 'root'],
    ...(parameters.length ? { parameters } : {}),
    ...(requestBody ? { requestBody } : {}),
    responses,
    security: [],
    'x-restgate-level': route.level,
    ...(route.rule ? { 'x-restgate-rule': route.rule } : {}),
  };
  return applyAccessLevel(addErrorResponses(operation, derived), route.level);
}
