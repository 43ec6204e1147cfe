import { createHash, createSecretKey, timingSafeEqual } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { AppError, errors, isAppError, sharedErrorCatalogue, type Principal } from '@restgate/shared';
import type { RevocationList } from '@restgate/shared/limits';

export interface AuthenticatorOptions {
  masterKey: string;
  jwtSecret: string;
  issuer: string;
  audience: string;
  /** The longest access-token lifetime accepted (`exp − iat`, and the age of `iat`), in seconds. */
  maxLifetimeSeconds: number;
  /** Ended sessions (Redis, kept locally); without it nothing is checked (tests of other things). */
  revocations?: RevocationList;
}

/** Turns a presented token into a principal, or throws 401 `invalid_token`. */
export type Authenticator = (token: string) => Principal;

const OBJECT_ID = /^[0-9a-f]{24}$/;
// Clocks of identity and the gateway may differ a little; a token from further ahead is forged.
const CLOCK_SKEW_SECONDS = 30;

function sha256(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/**
 * Whether a token is the master key. Compared on SHA-256 digests, so the comparison is
 * constant-time and its duration says nothing about the key's length.
 */
export function masterKeyCheck(masterKey: string): (token: string) => boolean {
  const digest = sha256(masterKey);
  return (token) => timingSafeEqual(sha256(token), digest);
}

/** True for the 401 of a presented credential that failed verification (the authenticator's refusal). */
export function isBadCredential(err: unknown): boolean {
  return isAppError(err) && err.code === sharedErrorCatalogue.invalid_token.code;
}

/**
 * The master key is recognised by masterKeyCheck. Anything else must be a user token: HS256 only
 * (`alg: none` and RS/HS confusion are refused), with issuer, audience and an expiry, a lifetime
 * no longer than the longest configured one (a token signed with the real secret and a 100-year
 * `exp` is refused), and a session that has not ended (a local lookup: no Redis round trip).
 */
export function createAuthenticator(options: AuthenticatorOptions): Authenticator {
  const isMasterKey = masterKeyCheck(options.masterKey);
  const { revocations, maxLifetimeSeconds: max } = options;
  // A KeyObject, not the string: jsonwebtoken 9 turns a string secret into a key on every verify.
  const key = createSecretKey(Buffer.from(options.jwtSecret));
  const verifyOptions: jwt.VerifyOptions & { complete?: false } = {
    algorithms: ['HS256'],
    issuer: options.issuer,
    audience: options.audience,
  };

  return (token) => {
    if (isMasterKey(token)) return { kind: 'master' };
    let claims: string | jwt.JwtPayload;
    try {
      claims = jwt.verify(token, key, verifyOptions);
    } catch (err) {
      const expired = err instanceof jwt.TokenExpiredError;
      throw errors.unauthorized(expired ? 'The access token has expired.' : 'The access token is not valid.', true);
    }
    // jsonwebtoken accepts tokens without `exp`; restgate tokens always expire.
    if (typeof claims !== 'object' || typeof claims.exp !== 'number') {
      throw errors.unauthorized('The access token is not valid.', true);
    }
    const { sub, role, sid, iat, exp, cep, amr } = claims as {
      sub?: unknown;
      role?: unknown;
      sid?: unknown;
      iat?: unknown;
      exp: number;
      cep?: unknown;
      amr?: unknown;
    };
    if (
      typeof sub !== 'string' ||
      !OBJECT_ID.test(sub) ||
      (role !== 'user' && role !== 'admin') ||
      typeof sid !== 'string' ||
      sid.length === 0 ||
      (cep !== undefined && (typeof cep !== 'number' || !Number.isFinite(cep))) ||
      (amr !== undefined &&
        !(Array.isArray(amr) && amr.length <= 8 && amr.every((method) => typeof method === 'string' && method.length <= 32)))
    ) {
      throw errors.unauthorized('The access token is not valid.', true);
    }
    const now = Date.now() / 1000;
    if (typeof iat !== 'number' || exp - iat > max || now - iat > max || iat > now + CLOCK_SKEW_SECONDS) {
      throw errors.unauthorized('The access token is not valid: its lifetime is longer than this API issues.', true);
    }
    if (revocations) {
      // Never loaded (Redis away since the start): an empty list would re-admit every ended session.
      if (!revocations.loaded()) throw revocationsUnavailable();
      // `cep`: which password the session was opened with (absent: the user's first, or a token from before the claim).
      if (revocations.isRevoked({ sessionId: sid, userId: sub, credentialsEpoch: typeof cep === 'number' ? cep : 0 })) {
        throw errors.unauthorized('The session of this access token has ended: sign in again.', true);
      }
    }
    // `amr` (RFC 8176) goes on to the services: whether the session has a second factor.
    return { kind: 'user', id: sub, role, sid, ...(amr === undefined ? {} : { amr: amr as string[] }) };
  };
}

function revocationsUnavailable(): AppError {
  return errors.unavailable(
    'User tokens cannot be checked right now (the list of ended sessions is not available yet). Try again shortly.',
  );
}
