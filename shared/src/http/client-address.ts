import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The client's address as the gateway decided it (socket, or `X-Forwarded-For` of a trusted
 * proxy), signed like the principal header: a service keys per-address limits on it, and a client
 * that reaches a service directly can't pick its own address (the header then fails and the
 * service uses the socket's). The gateway strips any `x-restgate-*` header a client sends.
 */
export const CLIENT_ADDRESS_HEADER = 'x-restgate-client';

const MAX_AGE_MS = 60_000;

function mac(secret: string, payload: string): string {
  return createHmac('sha256', `client-address:${secret}`).update(payload).digest('base64url');
}

/** Signs `address` for one request (method + path, as the principal header is bound). */
export function signClientAddress(address: string, secret: string, method: string, path: string, now = Date.now()): string {
  const payload = Buffer.from(JSON.stringify({ a: address, m: method.toUpperCase(), u: path, t: now })).toString('base64url');
  return `${payload}.${mac(secret, payload)}`;
}

/** The signed address, or undefined when the header is missing, forged, stale or for another request. */
export function verifyClientAddress(header: unknown, secret: string, method: string, path: string, now = Date.now()): string | undefined {
  if (typeof header !== 'string') return undefined;
  const [payload, signature, extra] = header.split('.');
  if (!payload || !signature || extra !== undefined) return undefined;
  const expected = Buffer.from(mac(secret, payload));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { a?: unknown; m?: unknown; u?: unknown; t?: unknown };
    if (claims.m !== method.toUpperCase() || claims.u !== path) return undefined;
    if (typeof claims.t !== 'number' || Math.abs(now - claims.t) > MAX_AGE_MS) return undefined;
    return typeof claims.a === 'string' && claims.a.length <= 64 ? claims.a : undefined;
  } catch {
    return undefined;
  }
}
