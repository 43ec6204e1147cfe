import { identityErrors } from '../errors';
import type { AccountsDeps } from './accounts-deps';
import type { HashLane } from './password-hasher.port';
import { normalizeEmail, type UserRecord } from './user';

export interface Credentials {
  email: string;
  password: string;
}

/**
 * Where a password check comes from: the back-off keys on the address; the signal skips work for
 * a client gone; `lane` says whose hashing capacity it uses (sign-ins have a share of their own).
 */
export interface CheckContext {
  clientAddress: string;
  signal?: AbortSignal;
  lane?: HashLane;
  /**
   * True when the password alone does not finish the sign-in (MFA is on): a right password then
   * gives its try back without ending the failures in a row, so that guessing the second factor
   * between right passwords is still slowed down; the right code resets them.
   */
  secondFactorPending?: (user: UserRecord) => Promise<boolean>;
}

type CheckDeps = Pick<AccountsDeps, 'users' | 'hasher' | 'backoff'>;

/**
 * The user whose e-mail and password these are. Missing credentials, an unknown e-mail and a wrong
 * password all give the same 401, and the last two cost the same one comparison (Argon2id at the
 * current costs: an unknown e-mail is checked against a dummy hash of them).
 *
 * `assertTarget` (the caller's own rule on whom the credentials may act for) is one more wrong
 * answer: the same 401 after the same one comparison, counted as a failure, so neither the answer
 * nor its time tells anything about the password or about whose e-mail it is.
 */
export async function authenticate(
  deps: CheckDeps,
  credentials: Credentials | null,
  context: CheckContext = { clientAddress: 'unknown' },
  assertTarget?: (user: UserRecord) => boolean,
): Promise<UserRecord> {
  if (!credentials) throw identityErrors.wrongCredentials();
  const email = normalizeEmail(credentials.email);
  return checkPassword(deps, email, credentials.password, context, async () => {
    const user = await deps.users.findByEmail(email);
    return user && (!assertTarget || assertTarget(user)) ? user : null;
  });
}

/**
 * `owner` (known from their token) confirms their password: the Basic e-mail must be theirs. Other
 * accounts are never looked up, and the back-off counts against `owner`'s account: the one whose
 * password is being tried, whatever e-mail was sent.
 */
export async function confirmPassword(
  deps: CheckDeps,
  owner: UserRecord,
  credentials: Credentials | null,
  context: CheckContext,
): Promise<UserRecord> {
  if (!credentials) throw identityErrors.wrongCredentials();
  const email = normalizeEmail(credentials.email);
  return checkPassword(deps, owner.email, credentials.password, context, async () => (email === owner.email ? owner : null));
}

/**
 * One password check of the account `email`, against the user `load` gives (none: a dummy hash of
 * the same cost). The back-off reserves the try before any hashing: a wrong password leaves it
 * counted, a right one settles it, no verdict (an error, a client gone) gives it back.
 */
async function checkPassword(
  deps: CheckDeps,
  email: string,
  password: string,
  context: CheckContext,
  load: () => Promise<UserRecord | null>,
): Promise<UserRecord> {
  const reservation = await deps.backoff.reserve(email, context.clientAddress);
  let user: UserRecord | null;
  let matches: boolean;
  try {
    user = await load();
    matches = await deps.hasher.compare(password, user?.passwordHash ?? null, context.signal, context.lane);
  } catch (err) {
    await reservation.release();
    throw err;
  }
  if (!user || !matches) throw identityErrors.wrongCredentials();
  if (context.secondFactorPending && (await context.secondFactorPending(user))) await reservation.release();
  else await reservation.succeeded();
  return user;
}
