import { validateMessage } from '@restgate/shared/amqp';
import { MAIL_MESSAGE_SCHEMAS } from '../../mailer/src/domain/mail.messages';
import { linkMail, type LinkMailData as PasswordResetMailData } from '../src/domain/link-mail';

const passwordResetMail = (data: PasswordResetMailData, requestId: string) => linkMail('mail.password-reset', data, requestId);
const emailVerificationMail = (data: PasswordResetMailData, requestId: string) => linkMail('mail.email-verification', data, requestId);

/**
 * Identity keeps its own view of the mailer's `mail.password-reset` (the mailer owns the
 * contract). The two must agree: a request identity builds must be one the mailer accepts, and
 * what the mailer would dead-letter identity must refuse to build (and so never store).
 */
const valid: PasswordResetMailData = {
  to: 'ada@example.test',
  name: 'Ada Lovelace',
  link: 'https://app.example.test/reset/abc',
  expiresAt: '2030-01-01T10:00:00.000Z',
};

const mailerAccepts = (data: unknown) =>
  validateMessage(Buffer.from(JSON.stringify({ ...passwordResetMail(valid, 'req-1'), data })), {}, MAIL_MESSAGE_SCHEMAS).ok;

const identityBuilds = (data: PasswordResetMailData) => {
  try {
    passwordResetMail(data, 'req-1');
    return true;
  } catch {
    return false;
  }
};

describe('the mail.password-reset contract, seen by identity and by the mailer', () => {
  test('when identity builds a request, then the mailer accepts exactly it', () => {
    const envelope = passwordResetMail(valid, 'req-1');

    const result = validateMessage(Buffer.from(JSON.stringify(envelope)), { messageId: envelope.id }, MAIL_MESSAGE_SCHEMAS);

    expect(result).toEqual({ ok: true, message: envelope });
  });

  test.each<[string, Partial<PasswordResetMailData>]>([
    ['a valid request', {}],
    ['CR/LF in the address', { to: 'ada@example.test\r\nBcc: x@example.test' }],
    ['a display name in the address', { to: 'Ada <ada@example.test>' }],
    ['two addresses', { to: 'a@example.test,b@example.test' }],
    ['an address that is not one', { to: 'nobody' }],
    ['a control character in the name', { name: 'Ada\u0007' }],
    ['an empty name', { name: '' }],
    ['a name of 201 characters', { name: 'a'.repeat(201) }],
    ['a link that is not http(s)', { link: 'javascript:alert(1)' }],
    ['an expiry that is not a date', { expiresAt: 'soon' }],
  ])('when the data has %s, then identity builds it if and only if the mailer accepts it', (_case, change) => {
    const data = { ...valid, ...change };

    expect(identityBuilds(data)).toBe(mailerAccepts(data));
  });
});

describe('the mail.email-verification contract, seen by identity and by the mailer', () => {
  const verificationAccepted = (data: unknown) =>
    validateMessage(Buffer.from(JSON.stringify({ ...emailVerificationMail(valid, 'req-1'), data })), {}, MAIL_MESSAGE_SCHEMAS).ok;
  const verificationBuilt = (data: PasswordResetMailData) => {
    try {
      emailVerificationMail(data, 'req-1');
      return true;
    } catch {
      return false;
    }
  };

  test('when identity builds a request, then the mailer accepts exactly it', () => {
    const envelope = emailVerificationMail(valid, 'req-1');

    const result = validateMessage(Buffer.from(JSON.stringify(envelope)), { messageId: envelope.id }, MAIL_MESSAGE_SCHEMAS);

    expect(envelope.type).toBe('mail.email-verification');
    expect(result).toEqual({ ok: true, message: envelope });
  });

  test.each<[string, Partial<PasswordResetMailData>]>([
    ['a valid request', {}],
    ['CR/LF in the address', { to: 'ada@example.test\r\nBcc: x@example.test' }],
    ['a display name in the address', { to: 'Ada <ada@example.test>' }],
    ['a control character in the name', { name: 'Ada\u0007' }],
    ['a link that is not http(s)', { link: 'javascript:alert(1)' }],
    ['an expiry that is not a date', { expiresAt: 'soon' }],
  ])('when the data has %s, then identity builds it if and only if the mailer accepts it', (_case, change) => {
    const data = { ...valid, ...change };

    expect(verificationBuilt(data)).toBe(verificationAccepted(data));
  });
});
