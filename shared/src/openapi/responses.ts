import type Joi from 'joi';
import { errors, sharedErrorCatalogue, type AppError, type CatalogueEntry } from '../errors';
import type { ResponseDoc } from '../http/routes';
import { toProblem } from '../http/problem';
import { joiToJsonSchema } from './joi-schema';
import { ref, type OpenApiComponents, type OpenApiOperation, type OpenApiRef, type OpenApiResponse } from './types';

/** Error responses: the shared ones by status (in `components.responses`), a route's own, and the order an operation lists them in. */

export const PROBLEM_MEDIA_TYPE = 'application/problem+json';
const EXAMPLE_REQUEST_ID = '0b8f2c4e-6a3d-4e59-9a7b-2f1c8d9e0a11';

export const problemExample = (err: AppError) => toProblem(err, EXAMPLE_REQUEST_ID);

/**
 * Reusable error responses, by status: their descriptions list catalogue entries, and the
 * examples are what the catalogue really sends.
 * One example for the common statuses and none for the rare ones, so an operation in Swagger UI
 * shows its own answers first rather than a dozen generic problems.
 */
const E = sharedErrorCatalogue;
export const ERROR_RESPONSES: Record<string, { name: string; doc: ResponseDoc; examples: AppError[]; headers?: string[] }> = {
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

/** The text of one catalogue entry in the API docs: its code and what it means. */
export function describeError(entry: CatalogueEntry): string {
  return `\`${entry.code}\`: ${entry.meaning ?? entry.detail}`;
}

/** An error answer's description: the route's own words, then each code it lists with the catalogue's text. */
export function errorDescription(doc: ResponseDoc): string | undefined {
  if (!doc.errors?.length) return doc.description;
  const codes = doc.errors.map((entry) => `- ${describeError(entry)}`).join('\n');
  return doc.description ? `${doc.description}\n\n${codes}` : codes;
}

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
    description: description ?? (shared && errorDescription(shared.doc)) ?? 'Error.',
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
