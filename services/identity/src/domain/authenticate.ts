import { identityErrors } from '../errors';
import type { IdentityDeps } from './identity-deps';
import { normalizeEmail, type UserRecord } from './user';

export interface Credentials {
  email: string;
  password: string;
}

/**
 * The user whose e-mail and password these are. Missing credentials, an unknown e-mail and a wrong
 * password all give the same 401, and the last two cost the same bcrypt comparison.
 */
export async function authenticate(deps: Pick<IdentityDeps, 'users' | 'hasher'>, credentials: Credentials | null): Promise<UserRecord> {
  if (!credentials) throw identityErrors.wrongCredentials();
  const user = await deps.users.findByEmail(normalizeEmail(credentials.email));
  const matches = await deps.hasher.compare(credentials.password, user?.passwordHash ?? null);
  if (!user || !matches) throw identityErrors.wrongCredentials();
  return user;
}
