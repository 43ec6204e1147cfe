import type { Logger } from '@restgate/shared';
import { identityErrors } from '../errors';
import type { EmailVerificationMail } from './email-verification-mail';
import type { UserRepository } from './identity-deps';
import { hashResetToken } from './password-reset';
import type { ResetMailCap } from './reset-mail-cap';
import type { UserRecord } from './user';

/** A link works for a day: long enough to find the mail, short enough that an old inbox proves nothing. */
export const VERIFICATION_TTL_SECONDS = 24 * 3600;

/** A stored verification, as the use cases see it. */
export interface EmailVerificationRecord {
  id: string;
  userId: string;
  /** The address the link was sent to: it proves this address only. */
  email: string;
  expiresAt: Date;
}

/**
 * Where verification tokens are kept (the domain owns this interface; `data/` implements it).
 * A token and its mail request are one write, as for password resets: the document is the
 * outbox entry the relay publishes.
 */
export interface EmailVerificationRepository {
  /**
   * Ends the user's earlier links and stores this one with its mail request: of racing calls for
   * one user, one link is left. False when a racing call's link is the one left.
   */
  replaceWithMail(row: {
    userId: string;
    email: string;
    tokenHash: string;
    expiresAt: Date;
    envelope: EmailVerificationMail;
  }): Promise<boolean>;
  /** The same write for an address that gets no mail (unknown or already verified). */
  insertStandIn(row: { tokenHash: string; expiresAt: Date }): Promise<void>;
  /** The verification with this token hash, if it belongs to a user and has not expired. */
  findActive(tokenHash: string, now: Date): Promise<EmailVerificationRecord | null>;
  /** Uses up a verification: true for exactly one caller however many race. */
  consume(id: string, now: Date): Promise<boolean>;
  /** Ends every verification of the user (their pending mails go with them). */
  deleteAllOfUser(userId: string): Promise<number>;
}

export interface EmailVerificationDeps {
  users: UserRepository;
  verifications: EmailVerificationRepository;
  /** The page the link points at, as `<page>/<token>`. */
  page: string;
  /** Called after a mail request is written, so the relay publishes it now. */
  mailQueued: () => void;
  /** Verification mails per e-mail address, for requests of a new link (absent: no cap). */
  mailCap?: ResetMailCap;
  log?: Logger;
}

/** Same shape as reset tokens: 32 bytes in base64url. */
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/**
 * The live verification a token opens, and its user. Unknown, used, expired, malformed, a user
 * deleted since, or an address changed since: one 404 for all, and a malformed token costs no query.
 */
export async function assertActiveVerification(
  deps: Pick<EmailVerificationDeps, 'verifications' | 'users'>,
  token: string,
): Promise<{ verification: EmailVerificationRecord; user: UserRecord }> {
  const verification = TOKEN_PATTERN.test(token) ? await deps.verifications.findActive(hashResetToken(token), new Date()) : null;
  const user = verification && (await deps.users.findById(verification.userId));
  if (!verification || !user || user.email !== verification.email) throw identityErrors.verificationNotFound();
  return { verification, user };
}

/** `<page>/<token>`. */
export function verificationLink(page: string, token: string): string {
  return `${page.replace(/\/+$/, '')}/${token}`;
}
