import type Joi from 'joi';
import parseJoi from 'joi-to-json';
import { errors, sharedErrorCatalogue, type AppError, type CatalogueEntry } from './errors';
import { TRIMMED_WHITESPACE } from './http-url';
import { LISTING_LIMITS } from './listing';
import { toProblem } from './problem';
import type { AccessLevel, HttpMethod, ResponseDoc, RouteDef } from './routes';

/**
 * OpenAPI 3.1 from the route tables: each service builds its part from the same rows (and joi
 * schemas) that route and validate its requests; the gateway merges the parts. Everything that
 * depends on an access level comes from `applyAccessLevel`, so the gateway can re-apply its own.
 */

export type JsonSchema = { [keyword: string]: unknown };
export type OpenApiRef = { $ref: string };

export interface OpenApiInfo {
  title: string;
  version: string;
  description?: string;
}

export interface OpenApiParameter {
  name: string;
  in: 'query' | 'path' | 'header';
  required: boolean;
  description?: string;
  schema: JsonSchema;
  example?: unknown;
}

export interface OpenApiMediaType {
  schema: JsonSchema;
  example?: unknown;
  examples?: Record<string, { summary?: string; value: unknown }>;
}

export interface OpenApiResponse {
  description: string;
  headers?: Record<string, OpenApiRef | { description?: string; schema: JsonSchema }>;
  content?: Record<string, OpenApiMediaType>;
}

export type SecurityRequirement = Record<string, string[]>;

export interface OpenApiOperation {
  operationId: string;
  summary: string;
  description?: string;
  tags?: string[];
  parameters?: OpenApiParameter[];
  requestBody?: { required: boolean; content: Record<string, OpenApiMediaType> };
  responses: Record<string, OpenApiResponse | OpenApiRef>;
  security: SecurityRequirement[];
  /** The level the security requirement was built from. */
  'x-restgate-level': AccessLevel;
  /** Set by the gateway on a route it serves that no upstream described. */
  'x-restgate-undocumented'?: true;
}

export type OpenApiPathItem = Partial<Record<HttpMethod, OpenApiOperation>>;

export interface OpenApiComponents {
  schemas: Record<string, JsonSchema>;
  securitySchemes: Record<string, JsonSchema>;
  responses: Record<string, OpenApiResponse>;
  headers: Record<string, { description?: string; schema: JsonSchema }>;
}

export interface OpenApiDocument {
  openapi: string;
  info: OpenApiInfo;
  servers?: Array<{ url: string; description?: string }>;
  tags?: Array<{ name: string; description?: string }>;
  paths: Record<string, OpenApiPathItem>;
  components: OpenApiComponents;
  [extension: `x-${string}`]: unknown;
}

export const OPENAPI_VERSION = '3.1.0';
export const API_VERSION = '0.1.0';
const BODY_CONTENT_TYPES = ['application/x-www-form-urlencoded', 'application/json'] as const;
const PROBLEM_MEDIA_TYPE = 'application/problem+json';
const HTML_MEDIA_TYPE = 'text/html';
const HTML_PAGE: OpenApiMediaType = { schema: { type: 'string', description: 'An HTML page, for a browser.' } };

const LEVEL_TEXT: Record<AccessLevel, string> = {
  public: 'public — anyone.',
  master: 'master — the master key.',
  user: 'user — a valid user token, any role.',
  admin: 'admin — a user token whose role is `admin`.',
  basic: 'basic — HTTP Basic e-mail and password of the user concerned.',
  'master+basic': 'master+basic — the master key in `access_token` and HTTP Basic e-mail and password.',
  'user+basic': "user+basic — the user's own token in `access_token` (query or body) and their HTTP Basic e-mail and password.",
  provider: "provider — the social provider's access token (`access_token` or Bearer), passed through.",
};

const LEVEL_SECURITY: Record<AccessLevel, SecurityRequirement[]> = {
  public: [],
  master: [{ masterKey: [] }],
  user: [{ userToken: [] }],
  // An admin token is a user token with a role: one scheme, so one "Authorize" in Swagger UI serves both.
  admin: [{ userToken: [] }],
  basic: [{ basic: [] }],
  'master+basic': [{ masterKey: [], basic: [] }],
  // The Authorization header carries Basic, so the token goes as access_token.
  'user+basic': [{ ownToken: [], basic: [] }],
  provider: [{ providerToken: [] }],
};

const EXAMPLE_REQUEST_ID = '0b8f2c4e-6a3d-4e59-9a7b-2f1c8d9e0a11';

const ref = (kind: 'schemas' | 'responses' | 'headers', name: string): OpenApiRef => ({ $ref: `#/components/${kind}/${name}` });
const problemExample = (err: AppError) => toProblem(err, EXAMPLE_REQUEST_ID);

/**
 * Reusable error responses, by status: their descriptions list catalogue entries, and the
 * examples are what the catalogue really sends.
 * One example for the common statuses and none for the rare ones, so an operation in Swagger UI
 * shows its own answers first rather than a dozen generic problems.
 */
const E = sharedErrorCatalogue;
const ERROR_RESPONSES: Record<string, { name: string; doc: ResponseDoc; examples: AppError[]; headers?: string[] }> = {
  400: {
    name: 'BadRequest',
    doc: { errors: [E.validation_failed, E.malformed_body, E.content_type_mismatch, E.credential_ambiguous] },
    examples: [errors.validation([{ param: 'email', message: 'email must be a valid email', rule: 'string.email' }])],
  },
  401: {
    name: 'Unauthorized',
    doc: { errors: [E.credential_missing, E.invalid_token, E.invalid_credentials] },
    examples: [errors.unauthorized('The access token has expired.', true)],
    headers: ['WWW-Authenticate'],
  },
  403: { name: 'Forbidden', doc: { errors: [E.forbidden] }, examples: [errors.forbidden()] },
  404: {
    name: 'NotFound',
    doc: { description: 'Also for an id that is not well formed.', errors: [E.not_found, E.route_not_found] },
    examples: [errors.notFound()],
  },
  409: { name: 'Conflict', doc: { errors: [E.conflict] }, examples: [errors.conflict('email', 'The e-mail is already registered.')] },
  412: { name: 'PreconditionFailed', doc: { errors: [E.precondition_failed] }, examples: [errors.preconditionFailed()] },
  413: { name: 'PayloadTooLarge', doc: { errors: [E.payload_too_large] }, examples: [] },
  415: { name: 'UnsupportedMediaType', doc: { errors: [E.unsupported_media_type] }, examples: [] },
  429: { name: 'TooManyRequests', doc: { errors: [E.rate_limited] }, examples: [], headers: ['Retry-After'] },
  500: {
    name: 'InternalError',
    doc: { description: 'Details only in the log, under the request id.', errors: [E.internal_error] },
    examples: [],
  },
  502: { name: 'BadGateway', doc: { errors: [E.bad_gateway] }, examples: [] },
  503: {
    name: 'ServiceUnavailable',
    doc: { description: 'A dependency (database, broker, upstream) is unavailable.', errors: [E.service_unavailable] },
    examples: [],
    headers: ['Retry-After'],
  },
  504: { name: 'GatewayTimeout', doc: { errors: [E.gateway_timeout] }, examples: [] },
};

/** The components every part and the merged document share. */
export function baseComponents(): OpenApiComponents {
  const fieldError: JsonSchema = {
    type: 'object',
    required: ['param', 'message', 'rule'],
    properties: {
      param: { type: 'string', description: 'The failing field (a dotted path), or `body`/`query`/`params`.' },
      message: { type: 'string', description: 'What is wrong, in words.' },
      rule: { type: 'string', description: 'The rule that failed, e.g. `string.email`.' },
    },
  };
  const problem: JsonSchema = {
    type: 'object',
    description: 'An RFC 9457 problem.',
    required: ['type', 'title', 'status', 'detail', 'code'],
    properties: {
      type: { type: 'string', description: '`urn:restgate:problem:<code>`.' },
      title: { type: 'string' },
      status: { type: 'integer', minimum: 400, maximum: 599 },
      detail: { type: 'string' },
      code: { type: 'string', description: 'Stable machine-readable error code.' },
      requestId: { type: 'string', description: 'The request id (also in `X-Request-Id`).' },
      param: { type: 'string', description: 'Validation and conflicts: the first failing field.' },
      message: { type: 'string', description: 'Validation and conflicts: what is wrong with `param`.' },
      errors: { type: 'array', items: ref('schemas', 'FieldError'), description: 'Validation: every failure.' },
      limit: { type: 'string', description: 'Rate limited (429): the name of the limit that refused the request.' },
      mfaToken: {
        type: 'string',
        description: 'A sign-in of a user with MFA on (401 `mfa_required`): the credential of POST /auth/mfa, single use, valid 5 minutes.',
      },
    },
    examples: [problemExample(errors.notFound())],
  };
  const responses: Record<string, OpenApiResponse> = {};
  for (const doc of Object.values(ERROR_RESPONSES)) {
    // X-Request-Id is on every response too; on errors the body's `requestId` already shows it.
    const headers = Object.fromEntries((doc.headers ?? []).map((header) => [header, ref('headers', header.replace(/-/g, ''))]));
    responses[doc.name] = {
      description: errorDescription(doc.doc) ?? 'Error.',
      ...(Object.keys(headers).length ? { headers } : {}),
      content: {
        [PROBLEM_MEDIA_TYPE]: {
          schema: ref('schemas', 'Problem'),
          ...(doc.examples.length
            ? { examples: Object.fromEntries(doc.examples.map((err) => [err.code, { summary: err.detail, value: problemExample(err) }])) }
            : {}),
        },
      },
    };
  }
  // Answered by Node's HTTP parser before any route (no body): a query string past its 16 kB of headers.
  responses.QueryTooLong = {
    description:
      'Request Header Fields Too Large: the URL with its query string (or the headers) is longer than the server reads (16 kB). Send fewer or shorter filter values. No body.',
  };
  return {
    schemas: { Problem: problem, FieldError: fieldError },
    securitySchemes: {
      masterKey: {
        type: 'apiKey',
        in: 'query',
        name: 'access_token',
        description:
          'The master key. Also accepted as `access_token` in a form or JSON body, or as `Authorization: Bearer <key>` (not on routes that use HTTP Basic); give it in one place only.',
      },
      userToken: {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'JWT',
        description:
          "A user token from `POST /auth` (JWT, HS256, expires); admin routes take the same scheme with an admin's token (a user token whose role is `admin`). Also accepted as `access_token` in the query string or the body.",
      },
      ownToken: {
        type: 'apiKey',
        in: 'query',
        name: 'access_token',
        description:
          'A user token from `POST /auth`, as `access_token` in the query string or the body: for routes whose `Authorization` header carries HTTP Basic.',
      },
      basic: { type: 'http', scheme: 'basic', description: 'HTTP Basic: e-mail and password of the user concerned.' },
      providerToken: {
        type: 'http',
        scheme: 'bearer',
        description: "The social provider's access token (also accepted as `access_token`); the gateway passes it through untouched.",
      },
    },
    responses,
    headers: {
      RequestId: { description: 'The request id: the client’s when well formed, otherwise generated.', schema: { type: 'string' } },
      WWWAuthenticate: {
        description:
          '`Bearer realm="restgate"` (with `error="invalid_token"` when a token was presented), or `Basic realm="restgate"` on Basic routes.',
        schema: { type: 'string' },
      },
      RetryAfter: { description: 'Seconds to wait before retrying.', schema: { type: 'integer' } },
      CacheControl: {
        description: '`no-store`: the answer carries a token, or answers for the token in its URL; no cache may keep it.',
        schema: { type: 'string', const: 'no-store' },
      },
      XTotalCount: { description: 'How many rows match, ignoring paging.', schema: { type: 'integer' } },
      Link: {
        description:
          'RFC 8288 links: `first`, `prev`, `next` (with an `after` cursor while rows remain), `last` (only when counted and within the page maximum).',
        schema: { type: 'string' },
      },
      ETag: { description: 'A strong entity tag of this version of the resource, for `If-None-Match` and `If-Match`.', schema: { type: 'string' } },
    },
  };
}

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

const NUMERIC_KEYWORDS = [
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'minProperties',
  'maxProperties',
];

const isObject = (value: unknown): value is JsonSchema => typeof value === 'object' && value !== null && !Array.isArray(value);
const isJoiReference = (value: unknown) => isObject(value) && ('ref' in value || 'special' in value || 'function' in value);
/** Keywords whose values are data, not schemas: never rewritten. */
const VALUE_KEYWORDS = new Set(['examples', 'example', 'default', 'enum', 'const']);

const mapValues = (record: JsonSchema, fn: (value: unknown) => unknown): JsonSchema =>
  Object.fromEntries(Object.entries(record).map(([key, value]) => [key, fn(value)]));

/**
 * Makes the converter's output valid JSON Schema: joi limits given as references to other keys
 * (`page` ≤ f(`limit`)) have no JSON Schema form, so they become a sentence in the description.
 */
function sanitize(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(sanitize);
  if (!isObject(schema)) return schema;
  const out: JsonSchema = {};
  const notes: string[] = [];
  for (const [key, value] of Object.entries(schema)) {
    if (NUMERIC_KEYWORDS.includes(key) && typeof value !== 'number') {
      const path = isObject(value) && isObject(value.ref) && Array.isArray(value.ref.path) ? value.ref.path.join('.') : 'another parameter';
      notes.push(`${key} depends on \`${path}\``);
      continue;
    }
    if (key === 'default' && isJoiReference(value)) continue;
    // A pattern or bound that only the docs carry (`.meta({ 'x-restgate-pattern': … })`): joi checks it otherwise.
    if (key === 'x-restgate-pattern' || key === 'x-restgate-maximum' || key === 'x-restgate-default') {
      out[key.slice('x-restgate-'.length)] = value;
      continue;
    }
    out[key] = VALUE_KEYWORDS.has(key) ? value : key === 'properties' && isObject(value) ? mapValues(value, sanitize) : sanitize(value);
  }
  if (notes.length) out.description = [out.description, `(${notes.join('; ')}.)`].filter(Boolean).join(' ');
  return out;
}

const DEPENDS_NOTE = /\s*\([^()]* depends on [^()]*\.\)/g;

/** Requests drop unknown keys (`stripUnknown`) rather than reject them, so the request schemas say so. */
function allowUnknown(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(allowUnknown);
  if (!isObject(schema)) return schema;
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'additionalProperties' && value === false) continue;
    out[key] = VALUE_KEYWORDS.has(key)
      ? value
      : key === 'properties' && isObject(value)
        ? mapValues(value, allowUnknown)
        : allowUnknown(value);
  }
  return out;
}

/** The parts of joi's `describe()` that the string rules below read. */
interface JoiDescription {
  type?: string;
  allow?: unknown[];
  rules?: Array<{ name: string; args?: { limit?: unknown; enabled?: boolean } }>;
  keys?: Record<string, JoiDescription>;
  items?: JoiDescription[];
}

const BLANK = `[${TRIMMED_WHITESPACE}]`;
const NON_BLANK = `[^${TRIMMED_WHITESPACE}\\u0000]`;
const NO_NUL = '^[^\\u0000]*$';

/** "Between min and max characters once blanks at both ends are trimmed, and no NUL", as a pattern. */
function trimmedLengthPattern(min: number, max: number): string {
  const middle =
    max < 2 ? '' : min >= 2 ? `[^\\u0000]{${min - 2},${max - 2}}${NON_BLANK}` : `(?:[^\\u0000]{0,${max - 2}}${NON_BLANK})?`;
  return `^${BLANK}*${NON_BLANK}${middle}${BLANK}*$`;
}

function addPattern(json: JsonSchema, pattern: string): void {
  if (typeof json.pattern === 'string') json.allOf = [...(Array.isArray(json.allOf) ? json.allOf : []), { pattern }];
  else json.pattern = pattern;
}

/**
 * What joi-to-json leaves out of a string: joi refuses `''` unless `.allow('')` (JSON Schema
 * allows it unless `minLength` says otherwise), a `.trim()`med string is measured after
 * trimming, so its length bounds become a pattern on the value as sent, and `validateInput`
 * refuses the NUL character in every string.
 */
function addStringRules(description: JoiDescription, json: unknown): void {
  if (!isObject(json)) return;
  if (description.type === 'object' && description.keys && isObject(json.properties)) {
    for (const [key, child] of Object.entries(description.keys)) addStringRules(child, json.properties[key]);
    return;
  }
  if (description.type === 'array' && description.items?.length === 1) return addStringRules(description.items[0]!, json.items);
  if (description.type !== 'string' || json.type !== 'string') return;
  const limit = (name: string) => {
    const value = description.rules?.find((rule) => rule.name === name)?.args?.limit;
    return typeof value === 'number' ? value : undefined;
  };
  const trimmed = description.rules?.some((rule) => rule.name === 'trim' && rule.args?.enabled !== false) ?? false;
  if (description.allow?.includes('') || !trimmed) {
    if (!description.allow?.includes('')) json.minLength = Math.max(limit('min') ?? 0, 1);
    addPattern(json, NO_NUL);
    return;
  }
  const max = limit('max');
  delete json.minLength;
  if (max !== undefined) delete json.maxLength;
  // Without a maximum, "not blank" is all a pattern needs to say.
  addPattern(json, max === undefined ? `^${BLANK}*${NON_BLANK}[^\\u0000]*$` : trimmedLengthPattern(Math.max(limit('min') ?? 0, 1), max));
}

/**
 * JSON Schema (2020-12, as OpenAPI 3.1 uses it) for a joi schema, through `joi-to-json`, with
 * (for requests) the string rules it does not carry over. Shared schemas (`.id()` + `.link()`) land in `components`.
 */
export function joiToJsonSchema(schema: Joi.Schema, components?: OpenApiComponents, options: { request?: boolean } = {}): JsonSchema {
  const shared: Record<string, unknown> = {};
  const converted = parseJoi(schema as unknown as Parameters<typeof parseJoi>[0], 'open-api-3.1', shared) as JsonSchema;
  const { schemas: linked, ...rest } = converted;
  if (components && isObject(linked)) {
    for (const [name, value] of Object.entries(linked)) components.schemas[name] ??= sanitize(value) as JsonSchema;
  }
  const result = sanitize(rest) as JsonSchema;
  // Response schemas say "a string" loosely; only what a request must satisfy gets the exact rules.
  if (options.request) addStringRules(schema.describe() as JoiDescription, result);
  return result;
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

function errorResponse(
  status: string,
  description: string | undefined,
  schema: Joi.Schema | undefined,
  components: OpenApiComponents,
): OpenApiResponse | OpenApiRef {
  const shared = ERROR_RESPONSES[status];
  if (!description && !schema && shared) return ref('responses', shared.name);
  const base = shared ? components.responses[shared.name] : undefined;
  const media = base?.content?.[PROBLEM_MEDIA_TYPE];
  return {
    description: description ?? (shared && errorDescription(shared.doc)) ?? 'Error.',
    ...(base?.headers ? { headers: base.headers } : {}),
    content: {
      [PROBLEM_MEDIA_TYPE]: schema
        ? { schema: joiToJsonSchema(schema, components) }
        : { schema: ref('schemas', 'Problem'), ...(media?.examples ? { examples: media.examples } : {}) },
    },
  };
}

/** The text of one catalogue entry in the API docs: its code and what it means. */
export function describeError(entry: CatalogueEntry): string {
  return `\`${entry.code}\`: ${entry.meaning ?? entry.detail}`;
}

/** An error answer's description: the route's own words, then each code it lists with the catalogue's text. */
function errorDescription(doc: ResponseDoc): string | undefined {
  if (!doc.errors?.length) return doc.description;
  const codes = doc.errors.map((entry) => `- ${describeError(entry)}`).join('\n');
  return doc.description ? `${doc.description}\n\n${codes}` : codes;
}

/**
 * Sets everything on an operation that follows from its access level: the security requirement,
 * the level line of the description, and the 401/403 responses. The gateway calls it with the
 * level in force when it differs from the one the service documented.
 */
export function applyAccessLevel(operation: OpenApiOperation, level: AccessLevel): OpenApiOperation {
  const changed = operation['x-restgate-level'] !== level;
  const description = (operation.description ?? '').replace(/^\*\*Access:\*\*[^\n]*\n?\n?/, '');
  const responses = { ...operation.responses };
  if (changed) {
    delete responses['401'];
    delete responses['403'];
  }
  if (level !== 'public') responses['401'] ??= ref('responses', 'Unauthorized');
  if (level !== 'public' && level !== 'provider') responses['403'] ??= ref('responses', 'Forbidden');
  return {
    ...operation,
    description: `**Access:** ${LEVEL_TEXT[level]}${description ? `\n\n${description}` : ''}`,
    security: LEVEL_SECURITY[level].map((requirement) => ({ ...requirement })),
    responses: sortResponses(responses),
    'x-restgate-level': level,
  };
}

/** Adds shared error responses an operation does not list yet. */
export function addErrorResponses(operation: OpenApiOperation, statuses: number[]): OpenApiOperation {
  const responses = { ...operation.responses };
  for (const status of statuses) responses[String(status)] ??= ref('responses', ERROR_RESPONSES[String(status)]!.name);
  return { ...operation, responses: sortResponses(responses) };
}

function sortResponses<T>(responses: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)));
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
        ? successResponse(doc.description ?? '', doc.schema, listing && status !== '304', components, conditional && status.startsWith('2') && !listing)
        : errorResponse(status, errorDescription(doc), doc.schema, components);
    if (route.noStore && !('$ref' in response)) response.headers = { ...response.headers, 'Cache-Control': ref('headers', 'CacheControl') };
    responses[status] = doc.html && !('$ref' in response) ? { ...response, content: { ...response.content, [HTML_MEDIA_TYPE]: HTML_PAGE } } : response;
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
    ...(route.description ? { description: route.description } : {}),
    tags: route.tags ?? [route.path.split('/').filter(Boolean)[0] ?? 'root'],
    ...(parameters.length ? { parameters } : {}),
    ...(requestBody ? { requestBody } : {}),
    responses,
    security: [],
    'x-restgate-level': route.level,
  };
  return applyAccessLevel(addErrorResponses(operation, derived), route.level);
}

/**
 * A service's part of the OpenAPI document: a complete OpenAPI 3.1 document for its route
 * table (the gateway merges the parts and keeps the routes it serves).
 */
export function buildOpenApiPart(routes: RouteDef[], info: { title: string; version?: string; description?: string }): OpenApiDocument {
  const components = baseComponents();
  const paths: Record<string, OpenApiPathItem> = {};
  const tags: string[] = [];
  for (const route of routes) {
    let operation: OpenApiOperation;
    try {
      operation = buildOperation(route, components);
    } catch (err) {
      throw new Error(`openapi: cannot describe ${route.method.toUpperCase()} ${route.path}: ${(err as Error).message}`, { cause: err });
    }
    const item = (paths[openApiPath(route.path)] ??= {});
    if (item[route.method]) throw new Error(`openapi: ${route.method.toUpperCase()} ${route.path} is in the route table twice`);
    item[route.method] = operation;
    for (const tag of operation.tags ?? []) if (!tags.includes(tag)) tags.push(tag);
  }
  return {
    openapi: OPENAPI_VERSION,
    info: { title: info.title, version: info.version ?? API_VERSION, description: info.description },
    tags: tags.map((name) => ({ name })),
    paths,
    components,
  };
}
