import { identityErrors } from '../errors';
import { assertActiveReset, assertResetUser, type PasswordResetDeps } from './password-reset';
import { replaceCredentials } from './sessions';
import { fullView, type FullUserView } from './user';

/**
 * Sets a new password with a reset token. The token is used up atomically (of two concurrent
 * calls, one wins, the other gets the 404 of a used token), and every other reset of the user
 * ends with it, and so does every session of the user (ended before the token is spent: when
 * that can't be recorded, the answer is a 503 and the link still works). Using the link also
 * verifies the address.
 */
export async function completePasswordReset(
  deps: Pick<PasswordResetDeps, 'resets' | 'users' | 'hasher' | 'sessions'>,
  token: string,
  password: string,
): Promise<FullUserView> {
  const reset = await assertActiveReset(deps, token);
  const user = await assertResetUser(deps, reset);
  // Hashed before the token is spent: a failing hash leaves the user a working link.
  const passwordHash = await deps.hasher.hash(password);
  const updated = await replaceCredentials(deps.sessions, user, async (credentialsEpoch) => {
    if (!(await deps.resets.consume(reset.id, new Date()))) throw identityErrors.resetNotFound();
    await deps.resets.deleteAllOfUser(user.id);
    // The token came by mail to the address: whoever used it owns the e-mail.
    return deps.users.update(user.id, { passwordHash, credentialsEpoch, emailVerified: true, passwordProven: true });
  });
  if (!updated) throw identityErrors.resetNotFound();
  return fullView(updated);
}
