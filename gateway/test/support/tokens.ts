import { randomBytes } from 'node:crypto';
import jwt from 'jsonwebtoken';

export const TEST_MASTER_KEY = 'test-master-key-0123456789abcdef-0123';
export const TEST_JWT_SECRET = 'test-jwt-secret-0123456789abcdef-0123';
export const TEST_ISSUER = 'restgate';
export const TEST_AUDIENCE = 'restgate-api';

export function anObjectId(): string {
  return randomBytes(12).toString('hex');
}

export interface TokenOptions {
  sub?: string;
  role?: string;
  /** The session id (`sid`); a random one by default. */
  sid?: string;
  secret?: string;
  issuer?: string;
  audience?: string;
  /** Seconds from now; negative for an expired token; null for no `exp` at all. */
  expiresIn?: number | null;
}

/** A user token the way identity signs it (HS256, sub = id, role, sid, iss, aud, exp, jti). */
export function aUserToken(options: TokenOptions = {}): string {
  const sub = options.sub ?? anObjectId();
  const now = Math.floor(Date.now() / 1000);
  const claims: Record<string, unknown> = {
    sub,
    id: sub,
    role: options.role ?? 'user',
    sid: options.sid ?? anObjectId(),
    iat: now,
    iss: options.issuer ?? TEST_ISSUER,
    aud: options.audience ?? TEST_AUDIENCE,
    jti: randomBytes(8).toString('hex'),
  };
  if (options.expiresIn !== null) claims.exp = now + (options.expiresIn ?? 600);
  return jwt.sign(claims, options.secret ?? TEST_JWT_SECRET, { algorithm: 'HS256' });
}

export function anAdminToken(options: TokenOptions = {}): string {
  return aUserToken({ ...options, role: 'admin' });
}

/** The claims of `token` re-signed with `alg: none` and no signature. */
export function unsignedToken(token: string): string {
  const [, payload] = token.split('.');
  const header = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
  return `${header}.${payload}.`;
}

/** `token` with its role changed to admin and the original signature kept. */
export function tamperedToken(token: string): string {
  const [header, payload, signature] = token.split('.');
  const claims = JSON.parse(Buffer.from(payload ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;
  const forged = Buffer.from(JSON.stringify({ ...claims, role: 'admin' })).toString('base64url');
  return `${header}.${forged}.${signature}`;
}
