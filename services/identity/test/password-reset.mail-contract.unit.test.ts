import { validateMessage } from '@restgate/shared/messaging';
import { MAIL_MESSAGE_SCHEMAS } from '../../mailer/src/domain/mail.messages';
import { LINK_MAIL_TYPES, linkMail, type LinkMailData, type LinkMailType } from '../src/emailed-links/link-mail';

/**
 * Identity keeps its own view of the mailer's link mails, `mail.password-reset` and
 * `mail.email-verification` (the mailer owns the contracts). The two must agree: a request
 * identity builds must be one the mailer accepts, and what the mailer would dead-letter identity
 * must refuse to build (and so never store).
 */
const valid: LinkMailData = {
  to: 'ada@example.test',
  name: 'Ada Lovelace',
  link: 'https://app.example.test/reset/abc',
  expiresAt: '2030-01-01T10:00:00.000Z',
};

const mailerAccepts = (type: LinkMailType, data: unknown) =>
  validateMessage(Buffer.from(JSON.stringify({ ...linkMail(type, valid, 'req-1'), data })), {}, MAIL_MESSAGE_SCHEMAS).ok;

const identityBuilds = (type: LinkMailType, data: LinkMailData) => {
  try {
    linkMail(type, data, 'req-1');
    return true;
  } catch {
    return false;
  }
};

describe.each(LINK_MAIL_TYPES)('the %s contract, seen by identity and by the mailer', (type) => {
  test('when identity builds a request, then the mailer accepts exactly it', () => {
    const envelope = linkMail(type, valid, 'req-1');

    const result = validateMessage(Buffer.from(JSON.stringify(envelope)), { messageId: envelope.id }, MAIL_MESSAGE_SCHEMAS);

    expect(envelope.type).toBe(type);
    expect(result).toEqual({ ok: true, message: envelope });
  });

  test.each<[string, Partial<LinkMailData>]>([
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

    expect(identityBuilds(type, data)).toBe(mailerAccepts(type, data));
  });
});
