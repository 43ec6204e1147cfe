import { errors, type Principal } from '@restgate/shared';
import { assertIfMatch } from '@restgate/shared/http';
import { identityErrors } from '../errors';
import { userTag } from './get-user';
import { getUser } from './user';
import type { IdentityDeps } from './identity-deps';
import { endSessionsOfUser } from './sessions';

/**
 * Deletes a user and ends their sessions. Besides each session, every token of the user is
 * revoked: a sign-in that checked the password just before the delete may still be opening a
 * session.
 */
export async function deleteUser(
  deps: Pick<IdentityDeps, 'users' | 'sessions' | 'revocations'>,
  caller: Principal,
  userId: string,
  ifMatch?: string,
): Promise<void> {
  const user = await getUser(deps, userId);
  // Checked before anything ends; the delete names the version, so a change since is a 412 too
  // (the tokens revoked by then stay revoked: the user signs in again).
  assertIfMatch(ifMatch, userTag(user));
  await deps.revocations.userEnded(userId);
  const deleted = await deps.users.delete(userId, ifMatch === undefined ? undefined : (user.version ?? 0));
  if (!deleted && ifMatch !== undefined && (await deps.users.findById(userId))) throw errors.preconditionFailed();
  await endSessionsOfUser(deps, userId);
  if (!deleted) throw identityErrors.userNotFound();
}
