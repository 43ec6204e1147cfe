import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ErrorRequestHandler } from 'express';
import type { Logger } from 'pino';
import { requestContext } from './access-log';
import { errors, isAppError, type AppError } from '../errors';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json; charset=utf-8';

/** The RFC 9457 body for an error: never a stack, a secret or a driver message. */
export function toProblem(err: AppError, requestId: string | undefined): Record<string, unknown> {
  return {
    type: `urn:restgate:problem:${err.code}`,
    title: err.title,
    status: err.status,
    detail: err.detail,
    code: err.code,
    requestId,
    ...err.extras,
  };
}

/** Writes the problem with node:http's own calls, so requests served outside Express answer alike. */
export function sendProblem(res: ServerResponse, err: AppError, requestId: string | undefined): void {
  const body = JSON.stringify(toProblem(err, requestId));
  res.statusCode = err.status;
  for (const [name, value] of Object.entries(err.headers)) res.setHeader(name, value);
  res.setHeader('Content-Type', PROBLEM_CONTENT_TYPE);
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(res.req?.method === 'HEAD' ? undefined : body);
}

/**
 * The Mongo driver's errors for a database it cannot reach or that stopped answering. Its pool
 * errors (PoolClearedOnNetworkError, when the monitor times out, among them) extend
 * MongoNetworkError, so an error counts when any class it descends from is listed.
 */
const MONGO_UNAVAILABLE = new Set([
  'MongoServerSelectionError',
  'MongoNetworkError',
  'MongoNetworkTimeoutError',
  'MongoNotConnectedError',
  'MongoTopologyClosedError',
  'MongoPoolClearedError',
  'MongoPoolClosedError',
  'MongoWaitQueueTimeoutError',
]);

function isDatabaseUnavailable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  if (MONGO_UNAVAILABLE.has(err.name)) return true;
  for (let proto = Object.getPrototypeOf(err); proto && proto !== Error.prototype; proto = Object.getPrototypeOf(proto)) {
    if (MONGO_UNAVAILABLE.has((proto as { constructor: { name: string } }).constructor.name)) return true;
  }
  return false;
}

/** Maps what libraries throw (body-parser, the Mongo driver) onto the error catalogue. */
export function normalizeError(err: unknown): AppError {
  if (isAppError(err)) return err;
  const e = err as { type?: string; name?: string; status?: number; expose?: boolean } | null;
  switch (e?.type) {
    case 'entity.too.large':
    case 'parameters.too.many':
      return errors.payloadTooLarge();
    case 'entity.parse.failed':
      return errors.malformedBody();
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return errors.unsupportedMediaType();
    case 'request.aborted':
    case 'request.size.invalid':
      return errors.malformedBody('The request body was incomplete.');
  }
  if (isDatabaseUnavailable(err)) return errors.unavailable('The database is unavailable. Try again shortly.', err);
  if (e?.expose && typeof e.status === 'number' && e.status >= 400 && e.status < 500) {
    return errors.badRequest(e.status, err);
  }
  return errors.internal(err);
}

/**
 * The one error handler: logs unexpected errors once with the request id, answers problem+json.
 * Plain node:http arguments, for the requests an app serves outside Express (the gateway's lane);
 * `problemHandler` is the same for Express. `shownPath` is how a 404 may echo the path it names
 * (createHttpApp passes the access log's redaction, so a token in a path is not sent back).
 */
export function answerError(
  logger: Logger,
  shownPath: (path: string) => string = (path) => path,
): (err: unknown, req: IncomingMessage, res: ServerResponse) => void {
  const explain = errorExplainer(logger, shownPath);
  return (err, req, res) => {
    const appError = explain(err, req);
    if (res.headersSent) {
      res.destroy();
      return;
    }
    sendProblem(res, appError, requestContext(req)?.id);
  };
}

/**
 * answerError's decision without the answer, for an app that writes its own (the gateway's
 * fastify reply): the catalogue error for what was thrown, logged once with the request id when
 * it is unexpected, and rate-limited at warn when it is an expected refusal.
 */
export function errorExplainer(
  logger: Logger,
  shownPath: (path: string) => string = (path) => path,
): (err: unknown, req: IncomingMessage) => AppError {
  const logExpected = expectedRefusalLog(logger);
  return (err, req) => {
    // Express decodes path parameters and throws URIError on a malformed %-escape: no resource
    // has such a name, so it is the 404 of any unknown path, not a server error.
    const appError = err instanceof URIError ? errors.routeNotFound(req.method ?? 'GET', shownPath(pathOf(req.url))) : normalizeError(err);
    const log = requestContext(req)?.log ?? logger;
    if (appError.expected) logExpected(log, appError);
    else if (!appError.isOperational || appError.status >= 500) {
      log.error({ err: appError.cause ?? err, code: appError.code }, 'request failed');
    }
    return appError;
  };
}

/** How often an expected refusal of one code is logged at most. */
const EXPECTED_LOG_INTERVAL_MS = 10_000;

/**
 * Expected refusals (`AppError.expected`: a full queue under a flood) at warn, without a stack,
 * one line per code per EXPECTED_LOG_INTERVAL_MS with how many were answered since the last one:
 * a flood must not write a line per request, nor a stack per refusal (a flood's log would then
 * grow with the flood and bury the errors that need reading).
 */
function expectedRefusalLog(logger: Logger): (log: Logger, err: AppError) => void {
  const byCode = new Map<string, { loggedAt: number; since: number }>();
  return (log, err) => {
    const now = Date.now();
    const seen = byCode.get(err.code);
    if (seen && now - seen.loggedAt < EXPECTED_LOG_INTERVAL_MS) {
      seen.since += 1;
      return;
    }
    const unlogged = seen?.since ?? 0;
    byCode.set(err.code, { loggedAt: now, since: 0 });
    (log ?? logger).warn(
      { code: err.code, status: err.status, ...(unlogged ? { alsoAnsweredSinceLastLine: unlogged } : {}) },
      `request refused: ${err.detail}`,
    );
  };
}

export function problemHandler(logger: Logger, shownPath?: (path: string) => string): ErrorRequestHandler {
  const answer = answerError(logger, shownPath);
  return (err, req, res, _next) => answer(err, req, res);
}

function pathOf(url = '/'): string {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}
