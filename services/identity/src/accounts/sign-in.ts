import { authenticate, type CheckContext, type Credentials } from './authenticate';
import { userSubject, verdictOf } from '../audit/audit-trail';
import type { AccountsDeps } from './accounts-deps';
import { openSession, type SignedIn } from './sessions';
import { isAddressProven, normalizeEmail, type UserRecord } from './user';
import { isAppError } from '@restgate/shared';
import { identityErrorCatalogue, identityErrors } from '../errors';

/**
 * `POST /auth`: the e-mail and password open a session (with REQUIRE_VERIFIED_EMAIL, only for a
 * proven address); with a second factor on, its second step instead (the `secondFactor` port).
 */
export async function signIn(
  deps: AccountsDeps,
  credentials: Credentials | null,
  context?: CheckContext & { userAgent?: string },
): Promise<SignedIn> {
  if (!credentials) throw identityErrors.wrongCredentials();
  // Asked once: the back-off's settling and the last step both need it.
  let secondStep: Promise<boolean> | undefined;
  const check = {
    clientAddress: 'unknown',
    ...context,
    lane: 'sign-in' as const,
    secondFactorPending: (user: UserRecord) => (secondStep ??= deps.secondFactor.isOn(user.id)),
  };
  const user = await authenticate(deps, credentials, check);
  await upgradePasswordHash(deps, user, credentials.password, check);
  // After the password check: only the address's owner learns that the account awaits verification.
  if (deps.requireVerifiedEmail && !isAddressProven(user)) throw identityErrors.emailUnverified();
  return openSessionOrSecondStep(deps, user, ['pwd'], context?.userAgent, await check.secondFactorPending(user));
}

/**
 * The last step of every sign-in (password or provider): the session, or, for a user with a
 * second factor on, its second step (a 401 `mfa_required` that carries the token for it).
 */
export async function openSessionOrSecondStep(
  deps: Pick<AccountsDeps, 'secondFactor' | 'tokens' | 'sessions' | 'sessionSettings' | 'audit'>,
  user: UserRecord,
  amr: string[],
  userAgent?: string,
  /** Whether the user has a second step, when the caller already asked. */
  secondStepOn?: boolean,
): Promise<SignedIn> {
  if (secondStepOn ?? (await deps.secondFactor.isOn(user.id))) return deps.secondFactor.challenge(user, amr, userAgent);
  return openSession(deps, user, userAgent, amr);
}

/**
 * A hash of older costs (bcrypt from before Argon2id, or Argon2id at other costs) is replaced by
 * one at the current costs, now that the password is known: one more hash in the same request.
 * The write is conditional on the hash just checked, so a password changed meanwhile stays; it
 * moves no credentials epoch, so no session ends. With the hashing queue full it waits for the
 * next sign-in (the old hash still works).
 */
async function upgradePasswordHash(
  deps: Pick<AccountsDeps, 'hasher' | 'users'>,
  user: UserRecord,
  password: string,
  context: CheckContext,
): Promise<void> {
  const current = user.passwordHash;
  if (current === null || !deps.hasher.needsRehash(current)) return;
  let next: string;
  try {
    next = await deps.hasher.hash(password, context.signal, context.lane);
  } catch (err) {
    if (isAppError(err) && err.code === identityErrorCatalogue.busy.code) return;
    throw err;
  }
  await deps.users.rehashPassword(user.id, current, next);
}

/**
 * A sign-in that did not open a session (nor its second step): recorded as refused or failed,
 * naming the account when the e-mail is one's (the attempted e-mail itself is not kept: a
 * password typed into the wrong field would be).
 */
export async function recordSignInFailure(
  deps: Pick<AccountsDeps, 'users' | 'audit'>,
  err: unknown,
  credentials: Credentials | null,
  /** `password`, or the provider's name. */
  method: string,
): Promise<void> {
  const verdict = verdictOf(err);
  if (!verdict) return;
  const user = credentials ? await deps.users.findByEmail(normalizeEmail(credentials.email)).catch(() => null) : null;
  await deps.audit.recordFailure(verdict.refused ? 'auth.sign_in.refused' : 'auth.sign_in.failed', {
    outcome: 'failure',
    actor: { kind: 'anonymous', id: null },
    subject: userSubject(user?.id ?? null),
    details: { method, reason: verdict.reason, ...(user || !credentials ? {} : { account: 'unknown' }) },
  });
}
