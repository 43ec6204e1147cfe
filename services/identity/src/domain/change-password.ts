import { identityErrors } from '../errors';
import { authenticate, type CheckContext, type Credentials } from './authenticate';
import type { IdentityDeps } from './identity-deps';
import { fullView, type FullUserView } from './user';

/**
 * A user changes their own password with their current e-mail and password (a token is not
 * enough). `me` is the user the credentials name.
 *
 * Whose id it is, is decided before the password is checked: another user's id (existing or not)
 * gets the wrong-password answer, so no answer can tell a right password from a wrong one there.
 */
export async function changePassword(
  deps: Pick<IdentityDeps, 'users' | 'hasher' | 'backoff'>,
  credentials: Credentials | null,
  idParam: string,
  newPassword: string,
  context?: CheckContext,
): Promise<FullUserView> {
  const ownId = (user: { id: string } | null) => idParam === 'me' || (user !== null && idParam.toLowerCase() === user.id);
  const user = await authenticate(deps, credentials, context, ownId);
  const updated = await deps.users.update(user.id, { passwordHash: await deps.hasher.hash(newPassword, context?.signal) });
  if (!updated) throw identityErrors.userNotFound();
  return fullView(updated);
}
