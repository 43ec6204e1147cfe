import { createEnvelope, type MessageEnvelope, type PasswordResetMailData } from '@restgate/shared';
import { randomEmail, uniqueSuffix } from '@restgate/shared/testing';

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
): MessageEnvelope<'mail.password-reset'> {
  return createEnvelope('mail.password-reset', aPasswordReset(overrides), requestId);
}
