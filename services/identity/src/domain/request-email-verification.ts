import type { Logger } from '@restgate/shared';
import { emailVerificationMail } from './email-verification-mail';
import { VERIFICATION_TTL_SECONDS, verificationLink, type EmailVerificationDeps } from './email-verification';
import { mailName, newResetToken } from './password-reset';
import { isAddressProven, normalizeEmail, type UserRecord } from './user';

/**
 * Queues a verification mail to the user's address: a fresh token and its mail request in one
 * insert (the outbox), replacing the user's earlier links, so one link works, the latest, even
 * when calls race. False when no mail can be built for the stored address (logged).
 */
export async function queueVerificationMail(
  deps: EmailVerificationDeps,
  user: Pick<UserRecord, 'id' | 'email' | 'name'>,
  requestId: string,
  log?: Logger,
): Promise<boolean> {
  const { token, tokenHash } = newResetToken();
  const expiresAt = new Date(Date.now() + VERIFICATION_TTL_SECONDS * 1000);
  let envelope;
  try {
    const link = verificationLink(deps.page, token);
    envelope = emailVerificationMail({ to: user.email, name: mailName(user), link, expiresAt: expiresAt.toISOString() }, requestId);
  } catch (err) {
    (log ?? deps.log)?.error({ err, userId: user.id }, 'verification mail cannot be built for this user; nothing sent');
    return false;
  }
  // A call that loses a race to another for the same user leaves that one's link, and its mail.
  await deps.verifications.replaceWithMail({ userId: user.id, email: user.email, tokenHash, expiresAt, envelope });
  deps.mailQueued();
  return true;
}

/**
 * `POST /email-verifications`: a fresh link to an unverified address. The answer must not tell
 * whether the address is registered or already verified, so those get the same work (a lookup,
 * a fresh token, one insert of a stand-in row that no token opens and that sends nothing) and
 * the same outcome. Past the per-address cap nothing is written and nothing sent, alike.
 */
export async function requestEmailVerification(
  deps: EmailVerificationDeps,
  input: { email: string; requestId: string },
  log?: Logger,
): Promise<void> {
  const email = normalizeEmail(input.email);
  const user = await deps.users.findByEmail(email);
  if (deps.mailCap && !(await deps.mailCap.allow(email))) {
    log?.info({ userId: user?.id }, 'verification mail cap reached for this address; nothing sent');
    return;
  }
  if (user && !isAddressProven(user) && (await queueVerificationMail(deps, user, input.requestId, log))) return;
  await deps.verifications.insertStandIn({
    tokenHash: newResetToken().tokenHash,
    expiresAt: new Date(Date.now() + VERIFICATION_TTL_SECONDS * 1000),
  });
}
