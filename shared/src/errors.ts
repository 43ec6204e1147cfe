/**
 * The one error type of restgate. Everything a service throws on purpose is an `AppError`;
 * the error handler turns it into an RFC 9457 problem+json body. Anything else is a bug and
 * becomes a generic 500.
 */
export interface FieldError {
  param: string;
  message: string;
  rule: string;
}

export interface AppErrorOptions {
  code: string;
  status: number;
  title: string;
  detail?: string;
  /** Extra members of the problem body (for example `param`, `errors`). */
  extras?: Record<string, unknown>;
  /** Response headers that belong to this error (`WWW-Authenticate`, `Allow`, `Retry-After`). */
  headers?: Record<string, string>;
  /** False for programmer errors: the process may be in a bad state. */
  isOperational?: boolean;
  /**
   * An answer the service gives on purpose under load (a full queue: 503 `busy`), not a failure:
   * logged as a warning without a stack, a few lines per minute at most, however many there are.
   */
  expected?: boolean;
  cause?: unknown;
}

export class AppError extends Error {
  readonly code: string;
  readonly status: number;
  readonly title: string;
  readonly detail: string;
  readonly extras: Record<string, unknown>;
  readonly headers: Record<string, string>;
  readonly isOperational: boolean;
  readonly expected: boolean;

  constructor(options: AppErrorOptions) {
    super(options.detail ?? options.title, { cause: options.cause });
    this.name = 'AppError';
    this.code = options.code;
    this.status = options.status;
    this.title = options.title;
    this.detail = options.detail ?? options.title;
    this.extras = options.extras ?? {};
    this.headers = options.headers ?? {};
    this.isOperational = options.isOperational ?? true;
    this.expected = options.expected ?? false;
  }
}

/** True when `err` is an `AppError` (also across copies of this module). */
export function isAppError(err: unknown): err is AppError {
  return err instanceof AppError || (err instanceof Error && err.name === 'AppError' && 'code' in err && 'status' in err);
}

const BEARER_REALM = 'Bearer realm="restgate"';
const BASIC_REALM = 'Basic realm="restgate"';

/** The errors every service can raise. Service-specific ones live in each service's `errors.ts`. */
export const errors = {
  validation(fieldErrors: FieldError[], detail?: string): AppError {
    const first = fieldErrors[0];
    return new AppError({
      code: 'validation_failed',
      status: 400,
      title: 'Invalid request',
      detail: detail ?? first?.message ?? 'The request is not valid.',
      extras: { param: first?.param, message: first?.message, errors: fieldErrors },
    });
  },
  malformedBody(detail = 'The request body could not be parsed.'): AppError {
    return new AppError({ code: 'malformed_body', status: 400, title: 'Malformed body', detail });
  },
  credentialAmbiguous(): AppError {
    return new AppError({
      code: 'credential_ambiguous',
      status: 400,
      title: 'Credential given more than once',
      detail: 'Send the access token in exactly one place: the query string, the body, or an Authorization: Bearer header.',
    });
  },
  /** A Bearer credential is missing (`presented: false`) or was presented and is not valid. */
  unauthorized(detail: string, presented: boolean, code = presented ? 'invalid_token' : 'credential_missing'): AppError {
    return new AppError({
      code,
      status: 401,
      title: 'Unauthorized',
      detail,
      headers: { 'WWW-Authenticate': presented ? `${BEARER_REALM}, error="invalid_token"` : BEARER_REALM },
    });
  },
  /**
   * The credential is right but one factor is not enough (RFC 9470): a sign-in of a user with MFA
   * on (with the `mfaToken` that `POST /auth/mfa` takes), or a token without a second factor
   * where one is required.
   */
  mfaRequired(detail: string, mfaToken?: string): AppError {
    return new AppError({
      code: 'mfa_required',
      status: 401,
      title: 'Unauthorized',
      detail,
      extras: mfaToken === undefined ? {} : { mfaToken },
      headers: { 'WWW-Authenticate': `${BEARER_REALM}, error="insufficient_user_authentication"` },
    });
  },
  /** HTTP Basic credentials are missing or wrong. */
  basicUnauthorized(detail = 'Wrong e-mail or password.', code = 'invalid_credentials'): AppError {
    return new AppError({ code, status: 401, title: 'Unauthorized', detail, headers: { 'WWW-Authenticate': BASIC_REALM } });
  },
  forbidden(detail = 'You are not allowed to do this.', code = 'forbidden'): AppError {
    return new AppError({ code, status: 403, title: 'Forbidden', detail });
  },
  notFound(detail = 'No such resource.', code = 'not_found'): AppError {
    return new AppError({ code, status: 404, title: 'Not found', detail });
  },
  routeNotFound(method: string, path: string): AppError {
    return new AppError({ code: 'route_not_found', status: 404, title: 'Not found', detail: `No route for ${method} ${path}.` });
  },
  methodNotAllowed(method: string, allowed: string[]): AppError {
    return new AppError({
      code: 'method_not_allowed',
      status: 405,
      title: 'Method not allowed',
      detail: `${method} is not allowed here; use ${allowed.join(', ')}.`,
      headers: { Allow: allowed.join(', ') },
    });
  },
  conflict(param: string, detail: string, code = 'conflict'): AppError {
    const message = detail;
    return new AppError({ code, status: 409, title: 'Conflict', detail, extras: { param, message } });
  },
  /** `If-Match` named a version that is no longer the current one: nothing changed. */
  preconditionFailed(detail = 'The resource changed since you read it (If-Match does not match its ETag): read it again, then retry.'): AppError {
    return new AppError({ code: 'precondition_failed', status: 412, title: 'Precondition failed', detail });
  },
  payloadTooLarge(): AppError {
    return new AppError({ code: 'payload_too_large', status: 413, title: 'Payload too large', detail: 'The request body is larger than allowed.' });
  },
  unsupportedMediaType(detail = 'Send the body as application/x-www-form-urlencoded or application/json.'): AppError {
    return new AppError({ code: 'unsupported_media_type', status: 415, title: 'Unsupported media type', detail });
  },
  /** A form body that is really JSON: curl -d sends every body as a form unless told otherwise. */
  jsonSentAsForm(): AppError {
    return new AppError({
      code: 'content_type_mismatch',
      status: 400,
      title: 'Malformed body',
      detail:
        'The body is JSON but came as application/x-www-form-urlencoded (curl -d and some clients send that type by default): send it with Content-Type: application/json.',
    });
  },
  tooManyRequests(retryAfterSeconds: number): AppError {
    return new AppError({
      code: 'rate_limited',
      status: 429,
      title: 'Too many requests',
      detail: `Try again in ${retryAfterSeconds} s.`,
      headers: { 'Retry-After': String(retryAfterSeconds) },
    });
  },
  badGateway(detail = 'An upstream service failed.'): AppError {
    return new AppError({ code: 'bad_gateway', status: 502, title: 'Bad gateway', detail });
  },
  unavailable(detail = 'A dependency is unavailable. Try again shortly.', cause?: unknown): AppError {
    return new AppError({ code: 'service_unavailable', status: 503, title: 'Service unavailable', detail, cause, headers: { 'Retry-After': '1' } });
  },
  gatewayTimeout(detail = 'An upstream service did not answer in time.'): AppError {
    return new AppError({ code: 'gateway_timeout', status: 504, title: 'Gateway timeout', detail });
  },
  internal(cause?: unknown): AppError {
    return new AppError({
      code: 'internal_error',
      status: 500,
      title: 'Internal server error',
      detail: 'Something went wrong on our side. Quote the request id if you report it.',
      isOperational: false,
      cause,
    });
  },
};
