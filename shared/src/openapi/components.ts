import { errors } from '../errors';
import { ERROR_RESPONSES, errorDescription, PROBLEM_MEDIA_TYPE, problemExample } from './responses';
import { ref, type JsonSchema, type OpenApiComponents, type OpenApiResponse } from './types';

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
        description: '`no-store`: the answer carries a token or a secret, or answers for the token in its URL; no cache may keep it.',
        schema: { type: 'string', const: 'no-store' },
      },
      XTotalCount: { description: 'How many rows match, ignoring paging.', schema: { type: 'integer' } },
      Link: {
        description:
          'RFC 8288 links: `first`, `prev`, `next` (with an `after` cursor while rows remain), `last` (only when counted and within the page maximum).',
        schema: { type: 'string' },
      },
      ETag: {
        description: 'A strong entity tag of this version of the resource, for `If-None-Match` and `If-Match`.',
        schema: { type: 'string' },
      },
    },
  };
}
