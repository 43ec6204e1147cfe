import type { Logger } from '@restgate/shared';
import { identityErrors } from '../errors';
import { userSubject } from '../audit/audit-trail';
import { assertActiveLink, consumeLink, requestLink, type EmailedLinkDeps, type LinkPurpose } from './emailed-link';
import type { PasswordHasher } from '../accounts/password-hasher.port';
import { resetLink } from './reset-link';
import { replaceCredentials, type SessionDeps } from '../accounts/sessions';
import type { UserRecord } from '../accounts/user';

export const PASSWORD_RESET: LinkPurpose = { mailType: 'mail.password-reset', notFound: identityErrors.resetNotFound, bindsAddress: false };

export interface PasswordResetDeps extends EmailedLinkDeps {
  hasher: PasswordHasher;
  /** A reset ends every session of the user. */
  sessions: Pick<SessionDeps, 'sessions' | 'revocations'>;
  /** Origins (`new URL(x).origin` form) a requested link may have, and the page used otherwise. */
  pages: { linkOrigins: string[]; defaultPage: string };
  /** What else a completed reset ends (MFA's pending sign-ins and wrong-code count); given the user as they were. */
  afterReset?: (before: UserRecord) => Promise<void>;
}

export interface RequestPasswordResetInput {
  email: string;
  link?: string;
  /** The HTTP request's id: it travels with the mail into the broker's headers and the mailer's logs. */
  requestId: string;
}

/**
 * `POST /password-resets`: a reset token and its mail request in one insert (the transactional
 * outbox), answered alike whether or not the e-mail is registered (see `requestLink`). A new mail
 * replaces the user's earlier reset tokens: one link works, the latest, so tokens never pile up.
 */
export async function requestPasswordReset(deps: PasswordResetDeps, input: RequestPasswordResetInput, log?: Logger): Promise<void> {
  const { user, mailed } = await requestLink(
    deps,
    { email: input.email, requestId: input.requestId, page: (token) => resetLink(input.link, token, deps.pages) },
    log,
  );
  await deps.audit.record('auth.password_reset.requested', {
    outcome: 'success',
    subject: userSubject(user?.id ?? null),
    details: { mailed, ...(user ? {} : { account: 'unknown' }) },
  });
}

/**
 * Sets a new password with a reset token. The token is used up atomically (of two concurrent
 * calls, one wins, the other gets the 404 of a used token), and every other reset of the user
 * ends with it, and so does every session of the user (ended before the token is spent: when
 * that can't be recorded, the answer is a 503 and the link still works). Using the link also
 * verifies the address.
 */
export async function completePasswordReset(
  deps: Pick<PasswordResetDeps, 'purpose' | 'links' | 'users' | 'hasher' | 'sessions' | 'afterReset' | 'audit'>,
  token: string,
  password: string,
  signal?: AbortSignal,
): Promise<UserRecord> {
  const { link, user } = await assertActiveLink(deps, token);
  // Hashed before the token is spent: a failing hash leaves the user a working link, and so does a
  // client gone meanwhile (a gateway's 504 never hides a completed reset).
  const passwordHash = await deps.hasher.hash(password, signal);
  const updated = await replaceCredentials(deps.sessions, user, async (credentialsEpoch) => {
    await consumeLink(deps, link);
    await deps.links.deleteAllOfUser(user.id);
    // The token came by mail to the address: whoever used it owns the e-mail.
    return deps.users.update(user.id, { passwordHash, credentialsEpoch, emailVerified: true, passwordProven: true });
  });
  if (!updated) throw identityErrors.resetNotFound();
  await deps.afterReset?.(user);
  // Whoever holds the link acts for its user: the actor is the request's (anonymous), the subject the user.
  await deps.audit.record('auth.password_reset.completed', { outcome: 'success', subject: userSubject(user.id) });
  return updated;
}
