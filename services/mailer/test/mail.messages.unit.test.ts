import { createEnvelope, MAX_MESSAGE_BYTES, validateMessage as validate, type MessageMeta } from '@restgate/shared/messaging';
import { MAIL_MESSAGE_SCHEMAS, type PasswordResetMailData } from '../src/domain/mail.messages';

// The mailer's contract through the shared envelope checks: what it accepts, what it dead-letters.
const validateMessage = (raw: Buffer, meta: MessageMeta = {}) => validate(raw, meta, MAIL_MESSAGE_SCHEMAS);
const RESET_SCHEMA = MAIL_MESSAGE_SCHEMAS['mail.password-reset'];

const data = (overrides: Partial<PasswordResetMailData> = {}): PasswordResetMailData => ({
  to: 'ada@example.test',
  name: 'Ada Lovelace',
  link: 'https://app.example.test/reset/abc123',
  expiresAt: '2030-01-01T10:00:00.000Z',
  ...overrides,
});

const envelope = (overrides: Record<string, unknown> = {}) => ({
  id: '0b9f5a4e-8a0c-4d67-9d5e-1f2a3b4c5d6e',
  type: 'mail.password-reset',
  occurredAt: '2030-01-01T09:00:00.000Z',
  requestId: 'req-1',
  data: data(),
  ...overrides,
});

const buffer = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value));

const reasonFor = (value: unknown, meta = {}) => {
  const result = validateMessage(buffer(value), meta);
  if (result.ok) throw new Error('expected the message to be refused');
  return result.reason;
};

describe('validateMessage', () => {
  test('when the message is a valid password-reset envelope, then it is returned typed', () => {
    const result = validateMessage(buffer(envelope()), { messageId: envelope().id, contentType: 'application/json' });

    expect(result).toEqual({ ok: true, message: envelope() });
  });

  test('when the envelope or data carry unknown fields, then they are dropped rather than refused', () => {
    const result = validateMessage(buffer(envelope({ extra: 1, data: { ...data(), locale: 'fr' } })));

    expect(result).toEqual({ ok: true, message: envelope() });
  });

  test.each([
    ['not JSON', '{"id":', /not valid JSON/],
    ['JSON but not an object', '"hello"', /schema: message: .*object/],
    ['no id', envelope({ id: undefined }), /id: .*required/],
    ['an id with a slash (unsafe as a file name)', envelope({ id: '../etc/passwd' }), /id: .*message id/],
    ['an unknown type', envelope({ type: 'mail.unknown' }), /type: .*must be/],
    ['an occurredAt that is not a date', envelope({ occurredAt: 'yesterday' }), /occurredAt: .*iso format/],
    ['a request id with spaces', envelope({ requestId: 'a b' }), /requestId/],
    ['no data', envelope({ data: undefined }), /data: .*required/],
    ['a link that is not http(s)', envelope({ data: data({ link: 'javascript:alert(1)' }) }), /data\.link: .*uri/],
    ['an address that is not one', envelope({ data: data({ to: 'nobody' }) }), /data\.to/],
    ['two addresses', envelope({ data: data({ to: 'a@example.test,b@example.test' }) }), /data\.to/],
    ['a display name in the address', envelope({ data: data({ to: 'Ada <ada@example.test>' }) }), /data\.to/],
    [
      'CR/LF in the address',
      envelope({ data: data({ to: 'ada@example.test\r\nBcc: x@example.test' }) }),
      /data\.to: to must not contain control characters/,
    ],
    [
      'a bare LF in the address',
      envelope({ data: data({ to: 'ada@example.test\nX: y' }) }),
      /data\.to: to must not contain control characters/,
    ],
    [
      'CR/LF in the name',
      envelope({ data: data({ name: 'Ada\r\nBcc: x@example.test' }) }),
      /data\.name: name must not contain control characters/,
    ],
    ['an expiry that is not a date', envelope({ data: data({ expiresAt: 'soon' }) }), /data\.expiresAt/],
  ])('when the message has %s, then it is refused with a reason', (_case, value, reason) => {
    expect(reasonFor(value)).toMatch(reason);
  });

  test('when the content type is not JSON, then it is refused', () => {
    expect(reasonFor(envelope(), { contentType: 'text/plain' })).toMatch(/content type "text\/plain"/);
  });

  test('when the AMQP messageId differs from the envelope id, then it is refused', () => {
    expect(reasonFor(envelope(), { messageId: 'other' })).toMatch(/messageId does not match/);
  });

  test('when the message is larger than the limit, then it is refused before parsing', () => {
    const big = envelope({ data: data({ name: 'x'.repeat(MAX_MESSAGE_BYTES) }) });
    expect(reasonFor(big)).toMatch(/larger than/);
  });

  test('when given anything at all, then it never throws', () => {
    for (const value of ['', 'null', '[]', '{}', '{"data":null}', '\u0000\u0001', JSON.stringify({ type: { $gt: '' } })]) {
      expect(() => validateMessage(Buffer.from(value))).not.toThrow();
      expect(validateMessage(Buffer.from(value)).ok).toBe(false);
    }
  });
});

describe('createEnvelope', () => {
  test('when the data is valid, then the envelope has a fresh id, the current time and the request id', () => {
    const before = Date.now();
    const first = createEnvelope('mail.password-reset', data(), 'req-9', RESET_SCHEMA);
    const second = createEnvelope('mail.password-reset', data(), 'req-9', RESET_SCHEMA);

    expect(first).toMatchObject({ type: 'mail.password-reset', requestId: 'req-9', data: data() });
    expect(first.id).not.toBe(second.id);
    expect(Date.parse(first.occurredAt)).toBeGreaterThanOrEqual(before);
    expect(validateMessage(Buffer.from(JSON.stringify(first)))).toEqual({ ok: true, message: first });
  });

  test('when the data would be refused by consumers, then it throws instead of producing a poison message', () => {
    expect(() =>
      createEnvelope('mail.password-reset', data({ to: 'x@example.test\r\nBcc: y@example.test' }), 'req-9', RESET_SCHEMA),
    ).toThrow(/control characters/);
  });
});
