import type { Principal } from '@restgate/shared';
import { identityErrors } from '../errors';
import { resolveUserId } from './access';
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
  idParam: string,
): Promise<void> {
  const userId = resolveUserId(idParam, caller);
  if (!(await deps.users.findById(userId))) throw identityErrors.userNotFound();
  await deps.revocations.userEnded(userId);
  const deleted = await deps.users.delete(userId);
  await endSessionsOfUser(deps, userId);
  if (!deleted) throw identityErrors.userNotFound();
}
