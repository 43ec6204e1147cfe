import { createEnvelope, type MessageEnvelope } from '@restgate/shared/amqp';
import { linkMailSchema } from './password-reset-mail';

/**
 * The mail request identity publishes to prove an address: its own view of the mailer's
 * `mail.email-verification` (the mailer owns that contract). Its data has the reset mail's shape
 * and checks, applied before the request is stored, so the mailer never gets one it would refuse.
 */
export const EMAIL_VERIFICATION_MAIL = 'mail.email-verification';

export interface EmailVerificationMailData {
  /** The address to prove: one bare address, no display name, no list. */
  to: string;
  /** The user's name, for the greeting. */
  name: string;
  /** The verification page, token included. */
  link: string;
  /** When the token stops working (ISO 8601). */
  expiresAt: string;
}

export type EmailVerificationMail = MessageEnvelope<typeof EMAIL_VERIFICATION_MAIL, EmailVerificationMailData>;

/** A new mail request (fresh id, current time). Throws when the data does not fit the contract. */
export function emailVerificationMail(data: EmailVerificationMailData, requestId: string): EmailVerificationMail {
  return createEnvelope(EMAIL_VERIFICATION_MAIL, data, requestId, linkMailSchema);
}
