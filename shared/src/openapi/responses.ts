import type Joi from 'joi';
import { errors, type AppError } from '../errors';
import { toProblem } from '../http/problem';
import { joiToJsonSchema } from './joi-schema';
import { ref, type OpenApiComponents, type OpenApiOperation, type OpenApiRef, type OpenApiResponse } from './types';

/** Error responses: the shared ones by status (in `components.responses`), a route's own, and the order an operation lists them in. */

export const PROBLEM_MEDIA_TYPE = 'application/problem+json';
const EXAMPLE_REQUEST_ID = '0b8f2c4e-6a3d-4e59-9a7b-2f1c8d9e0a11';

export const problemExample = (err: AppError) => toProblem(err, EXAMPLE_REQUEST_ID);

/**
 * Reusable error responses, by status; the examples are what the error catalogue really sends.
 * One example for the common statuses and none for the rare ones, so an operation in Swagger UI
 * shows its own answers first rather than a dozen generic problems.
 */
export const ERROR_RESPONSES: Record<string, { name: string; description: string; examples: AppError[]; headers?: string[] }> = {
  400: {
    name: 'BadRequest',
    description: 'Invalid body or query (validation), a malformed body, or a credential given in two places.',
    examples: [errors.validation([{ param: 'email', message: 'email must be a valid email', rule: 'string.email' }])],
  },
  401: {
    name: 'Unauthorized',
    description: 'Credential missing, wrong, malformed or expired; or wrong HTTP Basic e-mail or password.',
    examples: [errors.unauthorized('The access token has expired.', true)],
    headers: ['WWW-Authenticate'],
  },
  403: { name: 'Forbidden', description: 'A valid credential that may not do this.', examples: [errors.forbidden()] },
  404: { name: 'NotFound', description: 'No such resource (also for an id that is not well formed).', examples: [errors.notFound()] },
  409: {
    name: 'Conflict',
    description: 'Conflicts with an existing resource.',
    examples: [errors.conflict('email', 'The e-mail is already registered.')],
  },
  412: {
    name: 'PreconditionFailed',
    description: '`If-Match` does not name the current `ETag`: nothing changed.',
    examples: [errors.preconditionFailed()],
  },
  413: { name: 'PayloadTooLarge', description: 'The body is larger than allowed.', examples: [] },
  415: { name: 'UnsupportedMediaType', description: 'The body is neither a form nor JSON.', examples: [] },
  429: {
    name: 'TooManyRequests',
    description: 'Rate limited; retry after `Retry-After` seconds.',
    examples: [],
    headers: ['Retry-After'],
  },
  500: {
    name: 'InternalError',
    description: 'Something unexpected; details only in the log, under the request id.',
    examples: [],
  },
  502: { name: 'BadGateway', description: 'An upstream service failed.', examples: [] },
  503: {
    name: 'ServiceUnavailable',
    description: 'A dependency (database, broker, upstream) is unavailable.',
    examples: [],
    headers: ['Retry-After'],
  },
  504: { name: 'GatewayTimeout', description: 'An upstream service did not answer in time.', examples: [] },
};

export function errorResponse(
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
    description: description ?? shared?.description ?? 'Error.',
    ...(base?.headers ? { headers: base.headers } : {}),
    content: {
      [PROBLEM_MEDIA_TYPE]: schema
        ? { schema: joiToJsonSchema(schema, components) }
        : { schema: ref('schemas', 'Problem'), ...(media?.examples ? { examples: media.examples } : {}) },
    },
  };
}

/** Adds shared error responses an operation does not list yet. */
export function addErrorResponses(operation: OpenApiOperation, statuses: number[]): OpenApiOperation {
  const responses = { ...operation.responses };
  for (const status of statuses) responses[String(status)] ??= ref('responses', ERROR_RESPONSES[String(status)]!.name);
  return { ...operation, responses: sortResponses(responses) };
}

export function sortResponses<T>(responses: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)));
}
