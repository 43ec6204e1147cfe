import Joi from 'joi';
import { noControlCharacters, type MessageEnvelope, type MessageOf, type MessageSchemas } from '@restgate/shared/messaging';

/**
 * The mail requests the mailer accepts: its public contract. A service that wants a mail sent
 * publishes one of these (routing key = type) to the mail exchange; anything else is
 * dead-lettered. To add a mail: its data here and in `MAIL_MESSAGE_SCHEMAS` (the compiler insists
 * on both), and its rendering in render-mail.ts.
 */

/** Data of `mail.password-reset`: one mail with a reset link. */
export interface PasswordResetMailData {
  /** Recipient address (a bare address; never a display name or a list). */
  to: string;
  /** The user's name, shown in the greeting; absent: a neutral greeting. Never put in `To:`. */
  name?: string;
  /** The full link to the reset page, token included. */
  link: string;
  /** When the token stops working (ISO 8601). */
  expiresAt: string;
}

/** Data of `mail.email-verification`: one mail with a link that proves the address. */
export interface EmailVerificationMailData {
  /** Recipient address: the address to prove (a bare address; never a display name or a list). */
  to: string;
  /** The user's name, shown in the greeting; absent: a neutral greeting. Never put in `To:`. */
  name?: string;
  /** The full link to the verification page, token included. */
  link: string;
  /** When the token stops working (ISO 8601). */
  expiresAt: string;
}

/** What a security notice tells the account's owner happened. */
export const SECURITY_NOTICE_EVENTS = [
  'mfa-enabled',
  'mfa-disabled',
  'mfa-disabled-by-admin',
  'recovery-codes-renewed',
  'mfa-locked',
] as const;
export type SecurityNoticeEvent = (typeof SECURITY_NOTICE_EVENTS)[number];

/** Data of `mail.security-notice`: a change to how the account signs in, told to its address. No name, no link. */
export interface SecurityNoticeMailData {
  /** Recipient address (a bare address; never a display name or a list). */
  to: string;
  event: SecurityNoticeEvent;
}

/** Message type → its data. */
export interface MailDataByType {
  'mail.password-reset': PasswordResetMailData;
  'mail.email-verification': EmailVerificationMailData;
  'mail.security-notice': SecurityNoticeMailData;
}

export type MailType = keyof MailDataByType;
export type MailEnvelope<T extends MailType> = MessageEnvelope<T, MailDataByType[T]>;
/** Any valid mail request, narrowed by `type`. */
export type MailMessage = MessageOf<MailDataByType>;

/**
 * A bare address: no display name, no list, no quoting, no comments. Narrower than RFC 5322
 * on purpose — an address we put into an SMTP envelope must not be able to add recipients
 * or headers.
 */
const BARE_ADDRESS = /^[^\s<>()[\]\\,;:"@]+@[^\s<>()[\]\\,;:"@]+$/;

const recipientSchema = Joi.string()
  .max(254)
  .custom(noControlCharacters('to'))
  .pattern(BARE_ADDRESS, 'bare address')
  .email({ tlds: { allow: false }, multiple: false, ignoreLength: false })
  .description('Recipient: one bare e-mail address.');

const nameSchema = Joi.string().min(1).max(200).custom(noControlCharacters('name')).description("The user's name.");
const linkSchema = Joi.string()
  .max(2048)
  .uri({ scheme: ['https', 'http'] })
  .custom(noControlCharacters('link'));
const expiresAtSchema = Joi.string().isoDate().description('When the token expires (ISO 8601).');

/** Type → schema of its `data`. The keys are the mail types the mailer handles. */
export const MAIL_MESSAGE_SCHEMAS: MessageSchemas<MailDataByType> = {
  'mail.password-reset': Joi.object<PasswordResetMailData>({
    to: recipientSchema.required(),
    name: nameSchema,
    link: linkSchema.required().description('Reset page link with the token.'),
    expiresAt: expiresAtSchema.required(),
  }),
  'mail.email-verification': Joi.object<EmailVerificationMailData>({
    to: recipientSchema.required(),
    name: nameSchema,
    link: linkSchema.required().description('Verification page link with the token.'),
    expiresAt: expiresAtSchema.required(),
  }),
  'mail.security-notice': Joi.object<SecurityNoticeMailData>({
    to: recipientSchema.required(),
    event: Joi.string()
      .valid(...SECURITY_NOTICE_EVENTS)
      .required()
      .description('What happened to how the account signs in.'),
  }),
};

export const MAIL_TYPES = Object.keys(MAIL_MESSAGE_SCHEMAS) as MailType[];
