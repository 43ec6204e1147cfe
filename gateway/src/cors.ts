import type { FastifyCorsOptions } from '@fastify/cors';
import type { IncomingMessage } from 'node:http';
import { isAppError, problem } from '@restgate/shared';
import { gatewayErrorCatalogue } from './errors';

/** Response headers a browser client may read: paging, request id, auth challenges, back-off. */
const EXPOSED = ['X-Request-Id', 'X-Total-Count', 'Link', 'Location', 'WWW-Authenticate', 'Retry-After', 'Allow'];

/**
 * @fastify/cors's options for the origins in CORS_ORIGINS (comma list; "*" for any), or undefined
 * when empty. Credentials mode stays off: restgate credentials are tokens the client sends itself,
 * never cookies, so `Access-Control-Allow-Credentials` is never sent — and never together with `*`.
 * An OPTIONS request that is not a preflight (no Origin, or no Access-Control-Request-Method) is
 * not CORS's: it gets the table's 405, as with CORS off.
 */
export function corsFor(spec: string): FastifyCorsOptions | undefined {
  const origins = spec
    .split(',')
    .map((origin) => origin.trim())
    .filter(Boolean);
  if (origins.length === 0) return undefined;
  const options: FastifyCorsOptions = {
    origin: origins.includes('*') ? '*' : origins,
    credentials: false,
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowedHeaders: ['Authorization', 'Content-Type', 'X-Request-Id'],
    exposedHeaders: EXPOSED,
    maxAge: 600,
  };
  return {
    delegator: (req, callback) => callback(null, req.method === 'OPTIONS' && !isPreflight(req) ? { origin: false } : options),
  };
}

function isPreflight(req: Pick<IncomingMessage, 'method' | 'headers'>): boolean {
  return req.method === 'OPTIONS' && req.headers.origin !== undefined && req.headers['access-control-request-method'] !== undefined;
}

/**
 * With CORS off, a browser's preflight meets the 405 of an unknown method; the answer then names
 * the setting that would let the page's origin in, since the browser console shows nothing else.
 */
export function explainPreflight(req: IncomingMessage, err: unknown): unknown {
  if (!isPreflight(req) || !isAppError(err) || err.status !== 405) return err;
  return problem(gatewayErrorCatalogue.cors_not_enabled, {
    detail: `This is a CORS preflight from ${req.headers.origin}, and CORS is off: the gateway answers preflights only when its CORS_ORIGINS setting lists the page's origin (or "*").`,
    headers: err.headers,
  });
}
