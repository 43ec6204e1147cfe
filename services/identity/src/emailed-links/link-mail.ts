import Joi from 'joi';
import { createEnvelope, noControlCharacters, type MessageEnvelope } from '@restgate/shared/messaging';
import { mailRecipientSchema } from '../accounts/mail-address';
import { mailLinkSchema } from './reset-link';

/**
 * The mail requests identity publishes for an e-mailed link: its own view of the mailer's
 * `mail.password-reset` and `mail.email-verification` (the mailer owns those contracts; identity
 * never imports the mailer's code). Both carry the same data, checked as the mailer checks it
 * before the request is stored, so a request the mailer would dead-letter is never written.
 */
export const LINK_MAIL_TYPES = ['mail.password-reset', 'mail.email-verification'] as const;
export type LinkMailType = (typeof LINK_MAIL_TYPES)[number];

export interface LinkMailData {
  /** One bare address: no display name, no list. */
  to: string;
  /** The user's name, for the greeting; absent: a neutral greeting (an address not proven yet, or a name not fit for mail). */
  name?: string;
  /** The page the link opens, token included. */
  link: string;
  /** When the token stops working (ISO 8601). */
  expiresAt: string;
}

export type LinkMail = MessageEnvelope<LinkMailType, LinkMailData>;

/** The data of a mail that carries a link with a token: the mailer's checks. */
export const linkMailSchema = Joi.object<LinkMailData>({
  to: mailRecipientSchema.required(),
  name: Joi.string().min(1).max(200).custom(noControlCharacters('name')),
  link: mailLinkSchema.custom(noControlCharacters('link')).required(),
  expiresAt: Joi.string().isoDate().required(),
});

/** A new mail request (fresh id, current time). Throws when the data does not fit the contract. */
export function linkMail(type: LinkMailType, data: LinkMailData, requestId: string): LinkMail {
  return createEnvelope(type, data, requestId, linkMailSchema);
}
