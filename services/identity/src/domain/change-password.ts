import { identityErrors } from '../errors';
import { authenticate, type Credentials } from './authenticate';
import type { IdentityDeps } from './identity-deps';
import { fullView, type FullUserView } from './user';

/**
 * A user changes their own password with their current e-mail and password (a token is not
 * enough). `me` is the user the credentials name.
 */
export async function changePassword(
  deps: Pick<IdentityDeps, 'users' | 'hasher'>,
  credentials: Credentials | null,
  idParam: string,
  newPassword: string,
): Promise<FullUserView> {
  const user = await authenticate(deps, credentials);
  // Another user's id (existing or not) is refused alike: the answer says nothing about other ids.
  if (idParam !== 'me' && idParam.toLowerCase() !== user.id) throw identityErrors.notYourPassword();
  const updated = await deps.users.update(user.id, { passwordHash: await deps.hasher.hash(newPassword) });
  if (!updated) throw identityErrors.userNotFound();
  return fullView(updated);
}
