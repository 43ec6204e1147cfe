import { describeDuration, escapeHtml, renderMail } from '../src/domain/render-mail';
import { aPasswordResetMessage } from './support/builders';

const message = (overrides: { name?: string; link?: string } = {}) => ({
  ...aPasswordResetMessage(
    {
      to: 'ada@example.test',
      name: overrides.name ?? 'Ada',
      link: overrides.link ?? 'https://app.example.test/reset/tok123',
      expiresAt: '2030-01-01T10:00:00.000Z',
    },
    'req-1',
  ),
  occurredAt: '2030-01-01T09:00:00.000Z',
});

describe('renderMail(mail.password-reset)', () => {
  test('when rendered, then text and HTML carry the name, the link, the one-hour expiry and the "ignore it" line', () => {
    const mail = renderMail(message());

    expect(mail.to).toEqual({ address: 'ada@example.test' });
    expect(mail.subject).toBe('Reset your password');
    for (const body of [mail.text, mail.html]) {
      expect(body).toContain('Hello Ada,');
      expect(body).toContain('https://app.example.test/reset/tok123');
      expect(body).toContain('for one hour (until Tue, 01 Jan 2030 10:00 UTC)');
      expect(body).toContain("If you didn't ask for this, ignore this e-mail");
    }
    expect(mail.html).toContain('<a href="https://app.example.test/reset/tok123">');
  });

  test('when the name and link hold HTML, then the HTML part escapes them and the text part keeps them verbatim', () => {
    const mail = renderMail(message({ name: '<script>alert("x")</script>', link: "https://app.example.test/reset/a?b=1&c='2'" }));

    expect(mail.html).not.toContain('<script>');
    expect(mail.html).toContain('Hello &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;,');
    expect(mail.html).toContain('href="https://app.example.test/reset/a?b=1&amp;c=&#39;2&#39;"');
    expect(mail.text).toContain('Hello <script>alert("x")</script>,');
  });
});

describe('renderMail(mail.email-verification)', () => {
  test('when rendered, then text and HTML carry the name, the link, the 24-hour expiry and the "ignore it" line', () => {
    const mail = renderMail({
      id: 'c0ffee00-0000-4000-8000-000000000001',
      type: 'mail.email-verification',
      requestId: 'req-1',
      occurredAt: '2030-01-01T09:00:00.000Z',
      data: {
        to: 'ada@example.test',
        name: 'Ada <3',
        link: 'https://app.example.test/verify/tok"123',
        expiresAt: '2030-01-02T09:00:00.000Z',
      },
    });

    expect(mail.to).toEqual({ address: 'ada@example.test' });
    expect(mail.subject).toBe('Confirm your e-mail address');
    for (const body of [mail.text, mail.html]) {
      expect(body).toContain('for 24 hours (until Wed, 02 Jan 2030 09:00 UTC)');
      expect(body).toContain('An account was created with this e-mail address.');
      // Confirming proves the address, not who chose the password: the owner who didn't sign up is told what to do.
      expect(body).toContain("If you didn't sign up, don't confirm");
      expect(body).toContain('password reset');
    }
    expect(mail.text).toContain('Hello Ada <3,');
    expect(mail.text).toContain('https://app.example.test/verify/tok"123');
    expect(mail.html).toContain('Hello Ada &lt;3,');
    expect(mail.html).toContain('<a href="https://app.example.test/verify/tok&quot;123">');
  });
});

describe('renderMail without a name', () => {
  test('when the request carries no name (an address not proven yet), then the greeting is neutral and To: is the bare address', () => {
    const { name: _name, ...data } = message().data;
    const mail = renderMail({ ...message(), data });

    expect(mail.to).toEqual({ address: 'ada@example.test' });
    expect(mail.text.startsWith('Hello,\n')).toBe(true);
    expect(mail.html).toContain('<p>Hello,</p>');
  });
});

describe('renderMail(mail.security-notice)', () => {
  const notice = (event: 'mfa-enabled' | 'mfa-disabled' | 'mfa-disabled-by-admin' | 'recovery-codes-renewed' | 'mfa-locked') =>
    renderMail({
      id: 'c0ffee00-0000-4000-8000-000000000002',
      type: 'mail.security-notice',
      requestId: 'req-2',
      occurredAt: '2030-01-01T09:00:00.000Z',
      data: { to: 'ada@example.test', event },
    });

  test.each([
    ['mfa-enabled', 'Multi-factor sign-in was turned on'],
    ['mfa-disabled', 'Multi-factor sign-in was turned off'],
    ['mfa-disabled-by-admin', 'An administrator turned off multi-factor sign-in'],
    ['recovery-codes-renewed', 'New recovery codes were made'],
    ['mfa-locked', 'Many wrong sign-in codes for your account'],
  ] as const)('%s: its own subject, when it happened, a neutral greeting and no link', (event, subject) => {
    const mail = notice(event);

    expect(mail.subject).toBe(subject);
    expect(mail.to).toEqual({ address: 'ada@example.test' });
    expect(mail.text).toMatch(/^Hello,\n/);
    expect(mail.text).toContain('When: Tue, 01 Jan 2030 09:00 UTC.');
    expect(mail.html).not.toMatch(/<a /);
  });

  test('the lock notice tells the owner that their password is known and to change it', () => {
    expect(notice('mfa-locked').text).toMatch(/knows your password[\s\S]*Change your password now/);
  });
});

describe('describeDuration', () => {
  test.each([
    [60 * 60_000, 'one hour'],
    [2 * 60 * 60_000, '2 hours'],
    [30 * 60_000, '30 minutes'],
    [60_000, 'one minute'],
    [59 * 60_000 + 40_000, 'one hour'],
    [0, 'one minute'],
  ])('%d ms → %s', (ms, text) => {
    expect(describeDuration(ms)).toBe(text);
  });
});

describe('escapeHtml', () => {
  test('escapes the five characters that matter in content and quoted attributes', () => {
    expect(escapeHtml(`&<>"'`)).toBe('&amp;&lt;&gt;&quot;&#39;');
  });
});
