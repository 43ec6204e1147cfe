import { createHmac, timingSafeEqual } from 'node:crypto';
import { errors, type AppError } from './errors';

/** Who is calling, as decided by the gateway. */
export type Principal =
  | { kind: 'anonymous' }
  | { kind: 'master' }
  /**
   * `sid`: the session the user's access token belongs to (absent for a principal made otherwise).
   * `amr`: how the session's user proved who they are (RFC 8176: `pwd`, `otp`, `mfa`, a provider).
   * `needsSecondFactor`: set by the gateway when MFA_REQUIRED_ROLES lists the role and the session
   * has no second factor: the role's rights over other users' records do not apply.
   */
  | { kind: 'user'; id: string; role: 'user' | 'admin'; sid?: string; amr?: string[]; needsSecondFactor?: true };

export const PRINCIPAL_HEADER = 'x-restgate-principal';
export const ANONYMOUS: Principal = { kind: 'anonymous' };

/** How long a signed principal stays valid: long enough for one proxied request. */
const MAX_AGE_MS = 60_000;

interface SignedClaims {
  p: Principal;
  /** method and path the signature is bound to, so a header can't be replayed elsewhere */
  m: string;
  u: string;
  t: number;
}

function mac(secret: string, payload: string): Buffer {
  return createHmac('sha256', secret).update(payload).digest();
}

/** Signs `principal` for one request (`method` + `path`, query string excluded). */
export function signPrincipal(principal: Principal, secret: string, method: string, path: string, now = Date.now()): string {
  const claims: SignedClaims = { p: principal, m: method.toUpperCase(), u: path, t: now };
  const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
  return `${payload}.${mac(secret, payload).toString('base64url')}`;
}

/**
 * Verifies a principal header. Anything missing, forged, stale or bound to another request
 * yields the anonymous principal: a caller that skips the gateway gets no more than that.
 */
export function verifyPrincipal(header: string | undefined, secret: string, method: string, path: string, now = Date.now()): Principal {
  if (!header) return ANONYMOUS;
  const [payload, signature, extra] = header.split('.');
  if (!payload || !signature || extra !== undefined) return ANONYMOUS;
  const expected = mac(secret, payload);
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return ANONYMOUS;
  let claims: SignedClaims;
  try {
    claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as SignedClaims;
  } catch {
    return ANONYMOUS;
  }
  if (claims.m !== method.toUpperCase() || claims.u !== path) return ANONYMOUS;
  if (typeof claims.t !== 'number' || Math.abs(now - claims.t) > MAX_AGE_MS) return ANONYMOUS;
  return isPrincipal(claims.p) ? claims.p : ANONYMOUS;
}

function isPrincipal(value: unknown): value is Principal {
  if (typeof value !== 'object' || value === null) return false;
  const p = value as Record<string, unknown>;
  if (p.kind === 'anonymous' || p.kind === 'master') return true;
  return (
    p.kind === 'user' &&
    typeof p.id === 'string' &&
    (p.role === 'user' || p.role === 'admin') &&
    (p.sid === undefined || typeof p.sid === 'string') &&
    (p.amr === undefined || (Array.isArray(p.amr) && p.amr.every((method) => typeof method === 'string'))) &&
    (p.needsSecondFactor === undefined || p.needsSecondFactor === true)
  );
}

/** RFC 8176 methods that are a second factor: a one-time code (`otp`), or a recovery code (`mfa`). */
const SECOND_FACTORS = new Set(['otp', 'mfa']);

/** Whether a user principal's session was opened with a second factor. */
export function hasSecondFactor(principal: Principal): boolean {
  return principal.kind === 'user' && (principal.amr ?? []).some((method) => SECOND_FACTORS.has(method));
}

/**
 * Whether the caller may act as an admin over other users and their records: an admin whose
 * session has the second factor MFA_REQUIRED_ROLES asks for (the gateway marks it otherwise).
 */
export function actsAsAdmin(principal: Principal): boolean {
  return principal.kind === 'user' && principal.role === 'admin' && principal.needsSecondFactor !== true;
}

/**
 * Every place where admin rights override ownership asks this: an admin without the required
 * second factor gets 401 `mfa_required` (sign in again with a code); anyone else `refused()`.
 */
export function assertAdminRights(principal: Principal, refused: () => AppError): void {
  if (actsAsAdmin(principal)) return;
  if (principal.kind === 'user' && principal.role === 'admin') {
    throw errors.mfaRequired(
      'Acting as an admin needs a session opened with a second factor (MFA_REQUIRED_ROLES): sign in again with a one-time code.',
    );
  }
  throw refused();
}
