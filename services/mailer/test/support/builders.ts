import { createEnvelope } from '@restgate/shared/messaging';
import { randomEmail, uniqueSuffix } from '@restgate/shared/testing';
import { MAIL_MESSAGE_SCHEMAS, type MailEnvelope, type PasswordResetMailData } from '../../src/domain/mail.messages';

export const HOUR_MS = 60 * 60 * 1000;

/** Data of a password-reset mail, unique per call. */
export function aPasswordReset(overrides: Partial<PasswordResetMailData> = {}): PasswordResetMailData {
  return {
    to: randomEmail('reset'),
    name: `Ada ${uniqueSuffix()}`,
    link: `https://app.example.test/reset/${uniqueSuffix()}${uniqueSuffix()}`,
    expiresAt: new Date(Date.now() + HOUR_MS).toISOString(),
    ...overrides,
  };
}

/** A valid `mail.password-reset` envelope, as the identity service would publish it. */
export function aPasswordResetMessage(
  overrides: Partial<PasswordResetMailData> = {},
  requestId = `req-${uniqueSuffix()}`,
): MailEnvelope<'mail.password-reset'> {
  return createEnvelope('mail.password-reset', aPasswordReset(overrides), requestId, MAIL_MESSAGE_SCHEMAS['mail.password-reset']);
}
