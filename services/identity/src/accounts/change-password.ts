import type { Principal } from '@restgate/shared';
import { identityErrors } from '../errors';
import { authenticate, confirmPassword, type CheckContext, type Credentials } from './authenticate';
import type { AccountsDeps } from './accounts-deps';
import { replaceCredentials } from './sessions';
import type { UserRecord } from './user';

type ChangeDeps = Pick<AccountsDeps, 'users' | 'hasher' | 'backoff' | 'sessions' | 'revocations' | 'resetTokens' | 'secondFactor'>;

/**
 * A user changes their own password: their token (level `user+basic`) and their current e-mail and
 * password as HTTP Basic. The token names the account, so whose id it is is decided from it before
 * any password work (another id: 403), and the Basic e-mail is compared with the token user's,
 * never looked up: one comparison whatever e-mail and id were sent.
 *
 * Where an operator has opened the route to Basic alone (ROUTE_POLICY), the e-mail names the
 * account, and an id that is not its own is the same 401 as a wrong password, after the same one
 * comparison: neither the answer nor its time links an id to an e-mail.
 *
 * Every other session of the user ends, and so do their reset tokens. The session that stays is
 * the caller's (the token sent along); without one, every session ends.
 */
export async function changePassword(
  deps: ChangeDeps,
  caller: Principal,
  credentials: Credentials | null,
  userId: string | undefined,
  newPassword: string,
  context: CheckContext,
): Promise<UserRecord> {
  const user = await assertOwnPassword(deps, caller, credentials, userId, context);
  const passwordHash = await deps.hasher.hash(newPassword, context.signal);
  const keep = caller.kind === 'user' && caller.id === user.id ? caller.sid : undefined;
  const updated = await replaceCredentials(
    deps,
    user,
    (credentialsEpoch) => deps.users.update(user.id, { passwordHash, credentialsEpoch }),
    keep,
  );
  if (!updated) throw identityErrors.userNotFound();
  await deps.resetTokens.deleteAllOfUser(user.id);
  await deps.secondFactor.endPending(user.id);
  return updated;
}

async function assertOwnPassword(
  deps: ChangeDeps,
  caller: Principal,
  credentials: Credentials | null,
  userId: string | undefined,
  context: CheckContext,
): Promise<UserRecord> {
  if (caller.kind !== 'user') return authenticate(deps, credentials, context, (user) => userId === undefined || userId === user.id);
  if (userId !== caller.id) throw identityErrors.notYourPassword();
  // A token outlives nothing it shouldn't (a deleted user's are refused at the gateway); the same 401 if its user is gone.
  const owner = await deps.users.findById(caller.id);
  if (!owner) throw identityErrors.wrongCredentials();
  return confirmPassword(deps, owner, credentials, context);
}
