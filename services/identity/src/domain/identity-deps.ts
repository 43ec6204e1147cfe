import type { UserRepository } from '../data/user.repository';
import type { PasswordHasher } from './password-hasher';
import type { SignInBackoff } from './sign-in-backoff';
import type { TokenIssuer } from './token-issuer';

/** What the use cases work with. */
export interface IdentityDeps {
  users: UserRepository;
  hasher: PasswordHasher;
  tokens: TokenIssuer;
  /** The password back-off (absent: no throttling, as in tests that don't exercise it). */
  backoff?: SignInBackoff;
}
