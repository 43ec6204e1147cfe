import type { UserRepository } from '../data/user.repository';
import type { PasswordHasher } from './password-hasher';
import type { TokenIssuer } from './token-issuer';

/** What the use cases work with. */
export interface IdentityDeps {
  users: UserRepository;
  hasher: PasswordHasher;
  tokens: TokenIssuer;
}
