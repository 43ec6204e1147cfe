import { createSecretKey, randomUUID, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import type { TokenIssuer } from './token-issuer.port';

/** HS256 access tokens with jsonwebtoken; the gateway verifies them with the same secret. */
export function createTokenIssuer(options: { secret: string; issuer: string; audience: string; ttlSeconds: number }): TokenIssuer {
  const key: KeyObject = createSecretKey(Buffer.from(options.secret, 'utf8'));
  return {
    issue: (user, session) => ({
      token: jwt.sign({ id: user.id, role: user.role, sid: session.id, cep: session.credentialsEpoch, amr: session.amr }, key, {
        algorithm: 'HS256',
        subject: user.id,
        issuer: options.issuer,
        audience: options.audience,
        expiresIn: options.ttlSeconds,
        jwtid: randomUUID(),
      }),
      expiresIn: options.ttlSeconds,
    }),
  };
}
