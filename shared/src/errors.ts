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

/**
 * One entry of an error catalogue: what a code answers. `detail` is the body's `detail` when the
 * call site gives none, and says what the code means in the API docs and docs/errors.md.
 */
export interface ErrorEntry {
  readonly status: number;
  readonly title: string;
  readonly detail: string;
  /** What the code means, for the docs, where the default detail is no explanation (it is sent as is). */
  readonly meaning?: string;
  /** Response headers every answer of this code carries (a call site may add more). */
  readonly headers?: Readonly<Record<string, string>>;
  /** An answer given on purpose under load, not a failure (see `AppErrorOptions.expected`). */
  readonly expected?: boolean;
}

/** A catalogue entry that knows its code: what factories, route specs and the docs refer to. */
export type CatalogueEntry<C extends string = string> = ErrorEntry & { readonly code: C };

/** A catalogue as `errorCatalogue` returns it: each entry under its code, carrying that code. */
export type ErrorCatalogue<E extends Readonly<Record<string, ErrorEntry>> = Readonly<Record<string, ErrorEntry>>> = {
  readonly [K in keyof E & string]: E[K] & { readonly code: K };
};

/** The union of a catalogue's codes. */
export type CodeOf<C> = keyof C & string;

const CATALOGUE = Symbol.for('restgate.errorCatalogue');

/**
 * Freezes a service's (or shared's) table of errors and gives each entry its code. Write the
 * table `{ … } as const satisfies Record<string, ErrorEntry>`, so the codes' union type is the
 * table's keys; scripts/errors-table.cjs finds every catalogue by the mark this adds.
 */
export function errorCatalogue<const E extends Readonly<Record<string, ErrorEntry>>>(entries: E): ErrorCatalogue<E> {
  const catalogue = Object.fromEntries(
    Object.entries(entries).map(([code, entry]) => [
      code,
      Object.freeze({ ...entry, code, ...(entry.headers ? { headers: Object.freeze({ ...entry.headers }) } : {}) }),
    ]),
  );
  Object.defineProperty(catalogue, CATALOGUE, { value: true });
  return Object.freeze(catalogue) as ErrorCatalogue<E>;
}

/** True for an object `errorCatalogue` made (also across copies of this module). */
export function isErrorCatalogue(value: unknown): value is ErrorCatalogue {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[CATALOGUE] === true;
}

export interface ProblemOptions {
  /** Instead of the entry's default detail. */
  detail?: string;
  extras?: Record<string, unknown>;
  /** Added to (or replacing) the entry's headers. */
  headers?: Record<string, string>;
  cause?: unknown;
  /** Only for `bad_request`, whose status is the 4xx the refusing parser chose. */
  status?: number;
  isOperational?: boolean;
}

/** The error for a catalogue entry: its code, status, title, headers, and its default detail unless given one. */
export function problem(entry: CatalogueEntry, options: ProblemOptions = {}): AppError {
  return new AppError({
    code: entry.code,
    status: options.status ?? entry.status,
    title: entry.title,
    detail: options.detail ?? entry.detail,
    extras: options.extras,
    headers: { ...entry.headers, ...options.headers },
    isOperational: options.isOperational,
    expected: entry.expected,
    cause: options.cause,
  });
}

const BEARER_REALM = 'Bearer realm="restgate"';
const BEARER_INVALID = `${BEARER_REALM}, error="invalid_token"`;
const BEARER_MORE_FACTORS = `${BEARER_REALM}, error="insufficient_user_authentication"`;
const BASIC_REALM = 'Basic realm="restgate"';

/** The `WWW-Authenticate` of a 401: no token presented, a token that is not valid, a factor missing, or HTTP Basic. */
export const CHALLENGES = {
  credentialMissing: { 'WWW-Authenticate': BEARER_REALM },
  tokenInvalid: { 'WWW-Authenticate': BEARER_INVALID },
  moreFactors: { 'WWW-Authenticate': BEARER_MORE_FACTORS },
  basic: { 'WWW-Authenticate': BASIC_REALM },
} as const;

/** The errors any service can answer; each service's own are in its `errors.ts`. */
export const sharedErrorCatalogue = errorCatalogue({
  validation_failed: {
    status: 400,
    title: 'Invalid request',
    detail: 'The request is not valid.',
    meaning: 'The body, query or path parameters are not valid: `param` names the first failing field, `errors` lists every failure.',
  },
  malformed_body: { status: 400, title: 'Malformed body', detail: 'The request body could not be parsed.' },
  content_type_mismatch: {
    status: 400,
    title: 'Malformed body',
    detail:
      'The body is JSON but came as application/x-www-form-urlencoded (curl -d and some clients send that type by default): send it with Content-Type: application/json.',
  },
  credential_ambiguous: {
    status: 400,
    title: 'Credential given more than once',
    detail: 'Send the access token in exactly one place: the query string, the body, or an Authorization: Bearer header.',
  },
  bad_request: {
    status: 400,
    title: 'Bad request',
    detail: 'Bad request',
    meaning: 'A request the HTTP layer refused before any route read it; the status is the 4xx it chose.',
  },
  credential_missing: {
    status: 401,
    title: 'Unauthorized',
    detail: 'This route needs a credential.',
    headers: CHALLENGES.credentialMissing,
  },
  invalid_token: {
    status: 401,
    title: 'Unauthorized',
    detail: 'The access token is not valid: malformed, expired, or its session has ended.',
    headers: CHALLENGES.tokenInvalid,
  },
  mfa_required: {
    status: 401,
    title: 'Unauthorized',
    detail:
      'One factor is not enough here: a sign-in of a user with multi-factor sign-in on (the body has the `mfaToken` for POST /auth/mfa), or a token without a second factor where one is required.',
    headers: CHALLENGES.moreFactors,
  },
  // The gateway's answers on the levels that take HTTP Basic besides another credential, naming the missing half.
  master_key_missing: {
    status: 401,
    title: 'Unauthorized',
    detail:
      'The master key is missing: send it as access_token in the query string or the body (the Authorization header carries the HTTP Basic e-mail and password).',
    headers: CHALLENGES.credentialMissing,
  },
  user_token_missing: {
    status: 401,
    title: 'Unauthorized',
    detail:
      "The user's token is missing: send it as access_token in the query string or the body (the Authorization header carries the HTTP Basic e-mail and password).",
    headers: CHALLENGES.credentialMissing,
  },
  basic_required: {
    status: 401,
    title: 'Unauthorized',
    detail: "This route needs HTTP Basic: the user's e-mail and password in Authorization: Basic.",
    headers: CHALLENGES.basic,
  },
  invalid_credentials: { status: 401, title: 'Unauthorized', detail: 'Wrong e-mail or password.', headers: CHALLENGES.basic },
  forbidden: { status: 403, title: 'Forbidden', detail: 'You are not allowed to do this.' },
  not_owner: { status: 403, title: 'Forbidden', detail: 'Only the owner or an admin may do this.' },
  rule_denied: { status: 403, title: 'Forbidden', detail: "The resource's rule for this action does not let you do this to this record." },
  field_not_writable: {
    status: 403,
    title: 'Forbidden',
    detail: 'A field of the body may not be written by you: `param` names it.',
  },
  not_found: { status: 404, title: 'Not found', detail: 'No such resource.' },
  route_not_found: { status: 404, title: 'Not found', detail: 'No route for this method and path.' },
  method_not_allowed: {
    status: 405,
    title: 'Method not allowed',
    detail: 'The path exists, but not with this method; `Allow` names the methods it has.',
  },
  conflict: { status: 409, title: 'Conflict', detail: 'Conflicts with an existing resource.' },
  precondition_failed: {
    status: 412,
    title: 'Precondition failed',
    detail: 'The resource changed since you read it (If-Match does not match its ETag): read it again, then retry.',
  },
  payload_too_large: { status: 413, title: 'Payload too large', detail: 'The request body is larger than allowed.' },
  unsupported_media_type: {
    status: 415,
    title: 'Unsupported media type',
    detail: 'Send the body as application/x-www-form-urlencoded or application/json.',
  },
  rate_limited: {
    status: 429,
    title: 'Too many requests',
    detail: 'Too many requests: try again after `Retry-After` seconds; `limit` names the limit that refused it.',
  },
  internal_error: {
    status: 500,
    title: 'Internal server error',
    detail: 'Something went wrong on our side. Quote the request id if you report it.',
  },
  bad_gateway: { status: 502, title: 'Bad gateway', detail: 'An upstream service failed.' },
  service_unavailable: {
    status: 503,
    title: 'Service unavailable',
    detail: 'A dependency is unavailable. Try again shortly.',
    headers: { 'Retry-After': '1' },
  },
  gateway_timeout: { status: 504, title: 'Gateway timeout', detail: 'An upstream service did not answer in time.' },
} as const satisfies Record<string, ErrorEntry>);

export type SharedErrorCode = CodeOf<typeof sharedErrorCatalogue>;

const E = sharedErrorCatalogue;

/** Factories for the shared codes whose answers take arguments (a field, a method, a cause). */
export const errors = {
  validation(fieldErrors: FieldError[], detail?: string): AppError {
    const first = fieldErrors[0];
    return problem(E.validation_failed, {
      detail: detail ?? first?.message,
      extras: { param: first?.param, message: first?.message, errors: fieldErrors },
    });
  },
  malformedBody(detail?: string): AppError {
    return problem(E.malformed_body, { detail });
  },
  credentialAmbiguous(): AppError {
    return problem(E.credential_ambiguous);
  },
  /** A Bearer credential is missing (`presented: false`) or was presented and is not valid. */
  unauthorized(detail: string, presented: boolean): AppError {
    return problem(presented ? E.invalid_token : E.credential_missing, { detail });
  },
  /**
   * The credential is right but one factor is not enough (RFC 9470): a sign-in of a user with MFA
   * on (with the `mfaToken` that `POST /auth/mfa` takes), or a token without a second factor
   * where one is required.
   */
  mfaRequired(detail: string, mfaToken?: string): AppError {
    return problem(E.mfa_required, { detail, extras: mfaToken === undefined ? {} : { mfaToken } });
  },
  /** HTTP Basic credentials are missing or wrong. */
  basicUnauthorized(detail?: string): AppError {
    return problem(E.invalid_credentials, { detail });
  },
  forbidden(detail?: string): AppError {
    return problem(E.forbidden, { detail });
  },
  notOwner(): AppError {
    return problem(E.not_owner);
  },
  /** A resource's rule refused the action (`detail` names the clause outside production). */
  ruleDenied(detail?: string): AppError {
    return problem(E.rule_denied, { detail });
  },
  /** The body sets a field whose write rule refuses the caller. */
  fieldNotWritable(field: string, detail?: string): AppError {
    return problem(E.field_not_writable, { detail, extras: { param: field } });
  },
  notFound(detail?: string): AppError {
    return problem(E.not_found, { detail });
  },
  routeNotFound(method: string, path: string): AppError {
    return problem(E.route_not_found, { detail: `No route for ${method} ${path}.` });
  },
  methodNotAllowed(method: string, allowed: string[]): AppError {
    return problem(E.method_not_allowed, {
      detail: `${method} is not allowed here; use ${allowed.join(', ')}.`,
      headers: { Allow: allowed.join(', ') },
    });
  },
  /** A conflict on a field: the body names it as `param`, with the detail as its `message`. */
  conflict(param: string, detail: string, entry: CatalogueEntry = E.conflict): AppError {
    return problem(entry, { detail, extras: { param, message: detail } });
  },
  /** `If-Match` named a version that is no longer the current one: nothing changed. */
  preconditionFailed(): AppError {
    return problem(E.precondition_failed);
  },
  payloadTooLarge(): AppError {
    return problem(E.payload_too_large);
  },
  unsupportedMediaType(detail?: string): AppError {
    return problem(E.unsupported_media_type, { detail });
  },
  /** A form body that is really JSON: curl -d sends every body as a form unless told otherwise. */
  jsonSentAsForm(): AppError {
    return problem(E.content_type_mismatch);
  },
  /** What the HTTP layer refused with a 4xx of its own before any route read the request. */
  badRequest(status: number, cause: unknown): AppError {
    return problem(E.bad_request, { status, cause });
  },
  badGateway(): AppError {
    return problem(E.bad_gateway);
  },
  unavailable(detail?: string, cause?: unknown): AppError {
    return problem(E.service_unavailable, { detail, cause });
  },
  gatewayTimeout(): AppError {
    return problem(E.gateway_timeout);
  },
  internal(cause?: unknown): AppError {
    return problem(E.internal_error, { isOperational: false, cause });
  },
};
