import { identityErrors } from '../errors';
import type { IdentityDeps } from './identity-deps';
import { normalizeEmail, type UserRecord } from './user';

export interface Credentials {
  email: string;
  password: string;
}

/** Where a password check comes from: the back-off keys on the address; the signal skips work for a client gone. */
export interface CheckContext {
  clientAddress: string;
  signal?: AbortSignal;
}

/**
 * The user whose e-mail and password these are. Missing credentials, an unknown e-mail and a wrong
 * password all give the same 401, and the last two cost the same bcrypt comparison.
 *
 * The back-off is asked before any hashing; `assertTarget` (the caller's own rule on whom the
 * credentials may act for) runs before hashing too, and its refusal is one more wrong answer: the
 * same 401, counted as a failure, so it tells nothing about the password.
 */
export async function authenticate(
  deps: Pick<IdentityDeps, 'users' | 'hasher' | 'backoff'>,
  credentials: Credentials | null,
  context: CheckContext = { clientAddress: 'unknown' },
  assertTarget?: (user: UserRecord | null) => boolean,
): Promise<UserRecord> {
  if (!credentials) throw identityErrors.wrongCredentials();
  const email = normalizeEmail(credentials.email);
  const record = await deps.backoff?.assertMayTry(email, context.clientAddress);
  const user = await deps.users.findByEmail(email);
  const allowed = assertTarget ? assertTarget(user) : true;
  const matches = allowed && (await deps.hasher.compare(credentials.password, user?.passwordHash ?? null, context.signal));
  if (!user || !matches) {
    await deps.backoff?.failed(email, context.clientAddress);
    throw identityErrors.wrongCredentials();
  }
  // Nothing to reset for most sign-ins: skipping it saves a round trip to Redis on each.
  if (record?.failures) await deps.backoff?.succeeded(email, context.clientAddress);
  return user;
}
