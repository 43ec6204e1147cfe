import type { Role } from './user';

export interface TokenIssuer {
  /** A signed user token: HS256, `sub` = `id` = user id, `role`, `iat`, `exp`, `iss`, `aud`, `jti`. */
  issue(user: { id: string; role: Role }): string;
}
