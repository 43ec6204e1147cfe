import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { requestIdFor } from './request-id';

export interface AccessLogOptions {
  logger: Logger;
  /** The URL as the log may show it (credentials in the query or the path hidden). */
  redactUrl: (url: string) => string;
  /** Requests that get no completion line (health probes and scrapes). */
  ignore: (req: IncomingMessage) => boolean;
}

interface RequestLogState {
  id: string;
  logger: Logger;
  child?: Logger;
}

const states = new WeakMap<IncomingMessage, RequestLogState>();

function stateOf(req: IncomingMessage): RequestLogState {
  const state = states.get(req);
  // accessLog is the first middleware of every app: a request it never saw is a wiring mistake.
  if (!state) throw new Error('the access log has not seen this request');
  return state;
}

/** The request's id: the client's well-formed `X-Request-Id`, or a new one. */
export function requestIdOf(req: IncomingMessage): string {
  return stateOf(req).id;
}

/**
 * The logger for lines about this request: each carries `requestId`, the name the problem
 * bodies, the AMQP messages and the mailer's lines use too (one grep key across every service).
 * Made on first use: most requests log nothing but their completion line.
 */
export function requestLog(req: IncomingMessage): Logger {
  const state = stateOf(req);
  state.child ??= state.logger.child({ requestId: state.id });
  return state.child;
}

/** Both, or undefined for a request the access log never saw (the error handler's fallback). */
export function requestContext(req: IncomingMessage): { id: string; log: Logger } | undefined {
  return states.has(req) ? { id: requestIdOf(req), log: requestLog(req) } : undefined;
}

/**
 * Request id, request logger and one completion line per request:
 * `{ requestId, req: { id, method, url }, res: { statusCode }, responseTime, msg: 'request completed' }`,
 * at level error for a 5xx (msg `request errored`) but a 503 with `Retry-After` (warn, `request refused, retry later`),
 * `aborted: true` when the client left first.
 *
 * No child logger and no request serializer per request: the completion line is built from the
 * few fields above, because this runs on every proxied request and its cost is the gateway's.
 */
export function accessLog(options: AccessLogOptions): RequestHandler {
  const track = requestTracker(options);
  return (req: Request, res: Response, next: NextFunction) => {
    track(req, res);
    next();
  };
}

/**
 * accessLog's work on node:http objects, for an app that is not Express (the gateway): call it
 * first for every request.
 */
export function requestTracker({ logger, redactUrl, ignore }: AccessLogOptions): (req: IncomingMessage, res: ServerResponse) => void {
  // The completion line holds only the fields below, the URL already redacted: the logger's
  // redaction paths would find nothing in it, and walking them is work on every line for nothing.
  const lines = logger.child({}, { redact: { paths: [] } });
  return (req, res) => {
    const id = requestIdFor(req, res);
    states.set(req, { id, logger });
    if (ignore(req)) return;
    const started = performance.now();
    // The URL as it came: routers and the gateway rewrite req.url on the way.
    const url = req.url ?? '/';
    const method = req.method ?? 'GET';
    const done = () => {
      res.removeListener('finish', done);
      res.removeListener('close', done);
      completionLine(lines, res, { id, method, url: redactUrl(url) }, performance.now() - started);
    };
    res.on('finish', done);
    res.on('close', done);
  };
}

function completionLine(logger: Logger, res: ServerResponse, req: { id: string; method: string; url: string }, elapsed: number): void {
  const line = {
    requestId: req.id,
    req,
    res: { statusCode: res.statusCode },
    responseTime: Math.round(elapsed),
    ...(res.writableFinished ? {} : { aborted: true }),
  };
  // A 503 with Retry-After is a refusal on purpose (a full queue under a flood): a warning, not a
  // failure, and never a stack; the service that refused says why, a few lines a minute at most.
  if (res.statusCode === 503 && res.hasHeader('retry-after')) logger.warn(line, 'request refused, retry later');
  else if (res.statusCode >= 500)
    logger.error({ ...line, err: { message: `failed with status code ${res.statusCode}` } }, 'request errored');
  else logger.info(line, 'request completed');
}
