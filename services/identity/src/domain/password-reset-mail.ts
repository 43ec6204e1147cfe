import Joi from 'joi';
import { createEnvelope, noControlCharacters, type MessageEnvelope } from '@restgate/shared/amqp';
import { mailLinkSchema } from './reset-link';

/**
 * The mail request identity publishes for a password reset: its own view of the mailer's
 * `mail.password-reset` (the mailer owns that contract; identity never imports the mailer's
 * code). The checks are the mailer's, applied here before the request is stored, so a request
 * the mailer would dead-letter is never written to the outbox.
 */
export const PASSWORD_RESET_MAIL = 'mail.password-reset';

export interface PasswordResetMailData {
  /** One bare address: no display name, no list. */
  to: string;
  /** The user's name, for the greeting. */
  name: string;
  /** The reset page, token included. */
  link: string;
  /** When the token stops working (ISO 8601). */
  expiresAt: string;
}

export type PasswordResetMail = MessageEnvelope<typeof PASSWORD_RESET_MAIL, PasswordResetMailData>;

/** No display name, list, quoting or comment: nothing that could add a recipient or a header. */
const BARE_ADDRESS = /^[^\s<>()[\]\\,;:"@]+@[^\s<>()[\]\\,;:"@]+$/;

/** The data of a mail that carries a link with a token (reset, verification): the mailer's checks. */
export const linkMailSchema = Joi.object<PasswordResetMailData>({
  to: Joi.string()
    .max(254)
    .custom(noControlCharacters('to'))
    .pattern(BARE_ADDRESS, 'bare address')
    .email({ tlds: { allow: false }, multiple: false, ignoreLength: false })
    .required(),
  name: Joi.string().min(1).max(200).custom(noControlCharacters('name')).required(),
  link: mailLinkSchema.custom(noControlCharacters('link')).required(),
  expiresAt: Joi.string().isoDate().required(),
});

/** A new mail request (fresh id, current time). Throws when the data does not fit the contract. */
export function passwordResetMail(data: PasswordResetMailData, requestId: string): PasswordResetMail {
  return createEnvelope(PASSWORD_RESET_MAIL, data, requestId, linkMailSchema);
}
