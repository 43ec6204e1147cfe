import { userSubject } from '../audit/audit-trail';
import type { Logger } from '@restgate/shared';
import { identityErrors } from '../errors';
import { assertActiveLink, consumeLink, linkTo, queueLinkMail, requestLink, type EmailedLinkDeps, type LinkPurpose } from './emailed-link';
import type { VerificationMailer } from '../accounts/accounts-deps';
import { isAddressProven, type UserRecord } from '../accounts/user';

export const EMAIL_VERIFICATION: LinkPurpose = {
  mailType: 'mail.email-verification',
  notFound: identityErrors.verificationNotFound,
  bindsAddress: true,
};

/** A link works for a day: long enough to find the mail, short enough that an old inbox proves nothing. */
export const VERIFICATION_TTL_SECONDS = 24 * 3600;

export interface EmailVerificationDeps extends EmailedLinkDeps {
  /** The page the link points at, as `<page>/<token>`. */
  page: string;
}

type ReadDeps = Pick<EmailVerificationDeps, 'purpose' | 'links' | 'users'>;
type VerifyDeps = ReadDeps & Pick<EmailVerificationDeps, 'audit'>;

/** Sign-up's port: a verification link to the new user's address. */
export function verificationMailer(deps: EmailVerificationDeps): VerificationMailer {
  return (user, requestId, log) => queueLinkMail(deps, user, (token) => linkTo(deps.page, token), requestId, log);
}

/** `POST /email-verifications`: a fresh link to an unverified address, answered alike for any other (see `requestLink`). */
export async function requestEmailVerification(
  deps: EmailVerificationDeps,
  input: { email: string; requestId: string },
  log?: Logger,
): Promise<void> {
  const page = (token: string) => linkTo(deps.page, token);
  await requestLink(deps, { ...input, page, eligible: (user) => !isAddressProven(user) }, log);
}

/**
 * Proves the address with a verification token. The token is used up first, by a delete (FerretDB
 * runs a conditional update as read-then-write, so only a delete decides), then the user is
 * marked verified and their other links end.
 */
export async function verifyEmail(deps: VerifyDeps, token: string): Promise<UserRecord> {
  const { link, user } = await assertActiveLink(deps, token);
  await consumeLink(deps, link);
  const updated = await deps.users.update(user.id, { emailVerified: true });
  if (!updated) throw identityErrors.verificationNotFound();
  await deps.links.deleteAllOfUser(user.id);
  await deps.audit.record('auth.email.verified', { outcome: 'success', subject: userSubject(user.id) });
  return updated;
}
