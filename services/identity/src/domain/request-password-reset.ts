import type { Logger } from '@restgate/shared';
import { mailName, newResetToken, type PasswordResetDeps } from './password-reset';
import { passwordResetMail } from './password-reset-mail';
import { resetLink } from './reset-link';
import { normalizeEmail } from './user';

export interface RequestPasswordResetInput {
  email: string;
  link?: string;
  /** The HTTP request's id: it travels with the mail into the broker's headers and the mailer's logs. */
  requestId: string;
}

/**
 * Writes a reset token and its mail request in one insert (the transactional outbox), and wakes
 * the relay. The caller's answer must not tell whether the e-mail is registered, so an unknown
 * e-mail gets the same work — a lookup, a fresh token, one insert (a stand-in row that no token
 * opens and that sends nothing) — and the same outcome: nothing thrown, nothing returned.
 *
 * Past the per-address mail cap nothing is written and nothing sent, with the same outcome again.
 * A new mail replaces the user's earlier reset tokens rather than adding to them: one link works,
 * the latest, even when requests race (the repository holds a user to one live reset), so tokens
 * never pile up.
 */
export async function requestPasswordReset(deps: PasswordResetDeps, input: RequestPasswordResetInput, log?: Logger): Promise<void> {
  const email = normalizeEmail(input.email);
  const user = await deps.users.findByEmail(email);
  if (deps.mailCap && !(await deps.mailCap.allow(email))) {
    log?.info({ userId: user?.id }, 'password reset mail cap reached for this address; nothing sent');
    return;
  }
  const { token, tokenHash } = newResetToken();
  const expiresAt = new Date(Date.now() + deps.settings.ttlSeconds * 1000);
  const link = resetLink(input.link, token, deps.settings);
  const envelope = user ? mailFor(user, link, expiresAt, input.requestId, log) : null;
  // A request that loses a race to another for the same user leaves that one's link, and its mail.
  if (user && envelope) await deps.resets.replaceWithMail({ userId: user.id, tokenHash, expiresAt, envelope });
  else await deps.resets.insertStandIn({ tokenHash, expiresAt });
  deps.mailQueued();
}

function mailFor(user: { id: string; email: string; name: string }, link: string, expiresAt: Date, requestId: string, log?: Logger) {
  try {
    return passwordResetMail({ to: user.email, name: mailName(user), link, expiresAt: expiresAt.toISOString() }, requestId);
  } catch (err) {
    // A stored address the mail schema refuses (a provider's odd e-mail, say): no mail can go out,
    // and an error answer would tell the caller that the e-mail is registered.
    log?.error({ err, userId: user.id }, 'password reset mail cannot be built for this user; nothing sent');
    return null;
  }
}
