import { createSecretKey, randomUUID, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import type { Role } from './user';

export interface TokenIssuer {
  /** A signed user token: HS256, `sub` = `id` = user id, `role`, `iat`, `exp`, `iss`, `aud`, `jti`. */
  issue(user: { id: string; role: Role }): string;
}

export function createTokenIssuer(options: { secret: string; issuer: string; audience: string; ttlSeconds: number }): TokenIssuer {
  const key: KeyObject = createSecretKey(Buffer.from(options.secret, 'utf8'));
  return {
    issue: (user) =>
      jwt.sign({ id: user.id, role: user.role }, key, {
        algorithm: 'HS256',
        subject: user.id,
        issuer: options.issuer,
        audience: options.audience,
        expiresIn: options.ttlSeconds,
        jwtid: randomUUID(),
      }),
  };
}
