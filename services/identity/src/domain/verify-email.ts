import { identityErrors } from '../errors';
import { assertActiveVerification, type EmailVerificationDeps } from './email-verification';
import { fullView, type FullUserView } from './user';

export interface EmailVerificationView {
  user: { id: string; name: string; picture: string; email: string };
}

/** Whose address a token proves, for the verification page ("Confirm ada@example.com"). */
export async function getEmailVerification(
  deps: Pick<EmailVerificationDeps, 'verifications' | 'users'>,
  token: string,
): Promise<EmailVerificationView> {
  const { user } = await assertActiveVerification(deps, token);
  return { user: { id: user.id, name: user.name, picture: user.picture, email: user.email } };
}

/**
 * What the verification page shows: the address, and when the account with it was created (the
 * owner may not have created it: anyone can sign an address up).
 */
export async function getVerificationPage(
  deps: Pick<EmailVerificationDeps, 'verifications' | 'users'>,
  token: string,
): Promise<{ email: string; accountCreatedAt: Date }> {
  const { user } = await assertActiveVerification(deps, token);
  return { email: user.email, accountCreatedAt: user.createdAt };
}

/**
 * Proves the address with a verification token. The token is used up first, by a delete (of any
 * number of concurrent calls one wins, the others get the 404 of a used token: FerretDB runs a
 * conditional update as read-then-write, so only a delete decides), then the user is marked
 * verified and their other links end.
 */
export async function verifyEmail(deps: Pick<EmailVerificationDeps, 'verifications' | 'users'>, token: string): Promise<FullUserView> {
  const { verification, user } = await assertActiveVerification(deps, token);
  if (!(await deps.verifications.consume(verification.id, new Date()))) throw identityErrors.verificationNotFound();
  const updated = await deps.users.update(user.id, { emailVerified: true });
  if (!updated) throw identityErrors.verificationNotFound();
  await deps.verifications.deleteAllOfUser(user.id);
  return fullView(updated);
}
