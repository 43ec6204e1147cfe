import { identityErrors } from '../errors';
import { authenticate, type CheckContext, type Credentials } from './authenticate';
import type { IdentityDeps } from './identity-deps';
import { replaceCredentials } from './sessions';
import { fullView, type FullUserView } from './user';

/**
 * A user changes their own password with their current e-mail and password (a token is not
 * enough). `me` is the user the credentials name.
 *
 * Whose id it is, is decided before the password is checked: another user's id (existing or not)
 * gets the wrong-password answer, so no answer can tell a right password from a wrong one there.
 *
 * Every other session of the user ends, and so do their reset tokens. The session that stays is
 * the one whose access token came with the request (`keepSession`, the same user's); without
 * one, every session ends. Ended first: when that can't be recorded, the password is unchanged.
 */
export async function changePassword(
  deps: Pick<IdentityDeps, 'users' | 'hasher' | 'backoff' | 'sessions' | 'revocations' | 'resetTokens'>,
  credentials: Credentials | null,
  idParam: string,
  newPassword: string,
  context?: CheckContext & { keepSession?: { userId: string; sessionId: string } },
): Promise<FullUserView> {
  const ownId = (user: { id: string } | null) => idParam === 'me' || (user !== null && idParam.toLowerCase() === user.id);
  const user = await authenticate(deps, credentials, context, ownId);
  const passwordHash = await deps.hasher.hash(newPassword, context?.signal);
  const keep = context?.keepSession?.userId === user.id ? context.keepSession.sessionId : undefined;
  const updated = await replaceCredentials(deps, user.id, (credentialsEpoch) => deps.users.update(user.id, { passwordHash, credentialsEpoch }), keep);
  if (!updated) throw identityErrors.userNotFound();
  await deps.resetTokens.deleteAllOfUser(user.id);
  return fullView(updated);
}
