import { errors, type Principal } from '@restgate/shared';
import { identityErrors } from '../errors';
import { assertUserIfMatch } from './get-user';
import { getUser } from './user';
import type { AccountsDeps } from './accounts-deps';
import { endSessionsOfUser } from './sessions';

/**
 * Deletes a user and ends their sessions. Besides each session, every token of the user is
 * revoked: a sign-in that checked the password just before the delete may still be opening a
 * session.
 */
export async function deleteUser(
  deps: Pick<AccountsDeps, 'users' | 'sessions' | 'revocations' | 'secondFactor'>,
  caller: Principal,
  userId: string,
  ifMatch?: string,
): Promise<void> {
  const user = await getUser(deps, userId);
  // Checked before anything ends; the delete names the version, so a change since is a 412 too
  // (the tokens revoked by then stay revoked: the user signs in again).
  assertUserIfMatch(ifMatch, user);
  await deps.revocations.userEnded(userId);
  const deleted = await deps.users.delete(userId, ifMatch === undefined ? undefined : (user.version ?? 0));
  if (!deleted && ifMatch !== undefined && (await deps.users.findById(userId))) throw errors.preconditionFailed();
  await endSessionsOfUser(deps, userId);
  await deps.secondFactor.endPending(userId);
  if (!deleted) throw identityErrors.userNotFound();
}
