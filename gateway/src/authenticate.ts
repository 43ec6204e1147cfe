import { createHash, createSecretKey, timingSafeEqual } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { errors, type Principal } from '@restgate/shared';

export interface AuthenticatorOptions {
  masterKey: string;
  jwtSecret: string;
  issuer: string;
  audience: string;
}

/** Turns a presented token into a principal, or throws 401 `invalid_token`. */
export type Authenticator = (token: string) => Principal;

const OBJECT_ID = /^[0-9a-f]{24}$/;

function sha256(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/**
 * The master key is compared on SHA-256 digests, so the comparison is constant-time and its
 * duration says nothing about the key's length. Anything else must be a user token: HS256 only
 * (`alg: none` and RS/HS confusion are refused), with issuer, audience and an expiry.
 */
export function createAuthenticator(options: AuthenticatorOptions): Authenticator {
  const masterDigest = sha256(options.masterKey);
  // A KeyObject, not the string: jsonwebtoken 9 turns a string secret into a key on every verify.
  const key = createSecretKey(Buffer.from(options.jwtSecret));
  const verifyOptions: jwt.VerifyOptions & { complete?: false } = {
    algorithms: ['HS256'],
    issuer: options.issuer,
    audience: options.audience,
  };

  return (token) => {
    if (timingSafeEqual(sha256(token), masterDigest)) return { kind: 'master' };
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
    const { sub, role } = claims as { sub?: unknown; role?: unknown };
    if (typeof sub !== 'string' || !OBJECT_ID.test(sub) || (role !== 'user' && role !== 'admin')) {
      throw errors.unauthorized('The access token is not valid.', true);
    }
    return { kind: 'user', id: sub, role };
  };
}
