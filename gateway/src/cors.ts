import cors from 'cors';
import type { RequestHandler } from 'express';

/** Response headers a browser client may read: paging, request id, auth challenges, back-off. */
const EXPOSED = ['X-Request-Id', 'X-Total-Count', 'Link', 'Location', 'WWW-Authenticate', 'Retry-After', 'Allow'];

/**
 * CORS for the origins in CORS_ORIGINS (comma list; "*" for any), or undefined when empty.
 * Credentials mode stays off: restgate credentials are tokens the client sends itself, never
 * cookies, so `Access-Control-Allow-Credentials` is never sent — and never together with `*`.
 */
export function corsFor(spec: string): RequestHandler | undefined {
  const origins = spec
    .split(',')
    .map((origin) => origin.trim())
    .filter(Boolean);
  if (origins.length === 0) return undefined;
  return cors({
    origin: origins.includes('*') ? '*' : origins,
    credentials: false,
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowedHeaders: ['Authorization', 'Content-Type', 'X-Request-Id'],
    exposedHeaders: EXPOSED,
    maxAge: 600,
  });
}
