import type { Role } from './user';

export interface TokenIssuer {
  /**
   * A signed access token: HS256, `sub` = `id` = user id, `role`, `sid` (the session), `cep` (the
   * session's credentials epoch, ms), `amr` (how the user signed in, RFC 8176), `iat`, `exp`, `iss`, `aud`, a unique `jti`; and its lifetime
   * in seconds (`expiresIn`).
   */
  issue(
    user: { id: string; role: Role },
    session: { id: string; credentialsEpoch: number; amr: string[] },
  ): { token: string; expiresIn: number };
}
