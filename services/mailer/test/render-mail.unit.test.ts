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

    expect(mail.to).toEqual({ name: 'Ada', address: 'ada@example.test' });
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
