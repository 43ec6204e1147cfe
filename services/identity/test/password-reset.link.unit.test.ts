import { hashLinkToken, mailName, newLinkToken } from '../src/emailed-links/emailed-link';
import { resetLink } from '../src/emailed-links/reset-link';

const settings = { linkOrigins: ['https://app.example.com', 'http://localhost:3000'], defaultPage: 'https://example.com/reset/' };
const token = 'A'.repeat(43);

describe('resetLink', () => {
  test.each([
    ['an allowed origin', 'https://app.example.com/account/reset', 'https://app.example.com/account/reset/'],
    ['an allowed origin with a port', 'http://localhost:3000/reset', 'http://localhost:3000/reset/'],
    [
      'an allowed origin written in capitals (normalised as a browser reads it)',
      'HTTPS://APP.EXAMPLE.COM/reset/',
      'https://app.example.com/reset/',
    ],
    ['an allowed origin with its default port', 'https://app.example.com:443/reset', 'https://app.example.com/reset/'],
  ])('when the link has %s, then the mail links to <link>/<token>', (_label, link, expected) => {
    expect(resetLink(link, token, settings)).toBe(`${expected}${token}`);
  });

  test.each([
    ['no link', undefined],
    ['another origin', 'https://evil.example.net/reset'],
    ['the allowed origin as a prefix of another host', 'https://app.example.com.evil.example.net/reset'],
    ['the allowed origin as user info', 'https://app.example.com@evil.example.net/reset'],
    ['credentials on the allowed origin', 'https://user:pw@app.example.com/reset'],
    ['another port', 'https://app.example.com:8443/reset'],
    ['another scheme', 'http://app.example.com/reset'],
    ['no URL', 'reset-page'],
    ['a query string, where the token would land', 'https://app.example.com/reset?next='],
    ['a fragment', 'https://app.example.com/reset#'],
  ])('when the request has %s, then the default page is used', (_label, link) => {
    expect(resetLink(link, token, settings)).toBe(`https://example.com/reset/${token}`);
  });
});

describe('newLinkToken', () => {
  test('it has 256 random bits in base64url, and only its SHA-256 hash is kept', () => {
    const { token: a, tokenHash } = newLinkToken();
    const { token: b } = newLinkToken();

    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(a, 'base64url')).toHaveLength(32);
    expect(a).not.toBe(b);
    expect(tokenHash).toBe(hashLinkToken(a));
    expect(tokenHash).toMatch(/^[0-9a-f]{64}$/);
    expect(tokenHash).not.toContain(a);
  });
});

describe('mailName', () => {
  test('a proven address is greeted by a plain name, in any script', () => {
    expect(mailName({ name: 'Ada Lovelace', emailVerified: true })).toBe('Ada Lovelace');
    expect(mailName({ name: "  Zoë O'Brien-Søren ", emailVerified: true })).toBe("Zoë O'Brien-Søren");
    expect(mailName({ name: '李小龍', emailVerified: true })).toBe('李小龍');
  });

  test('an address not proven yet is greeted neutrally, whatever the name', () => {
    expect(mailName({ name: 'Ada Lovelace', emailVerified: false })).toBeUndefined();
  });

  test('a name that is more than a name (control characters, links, digits, symbols, over 60 characters) is never put in a mail', () => {
    for (const name of [
      'Ada\r\nBcc: x@evil.test',
      'Your account is locked, call 555 0100',
      'Support: https://evil.test/login',
      'evil.test/reset',
      '\n\t',
      '',
      'A'.repeat(61),
      'Ada <b>Lovelace</b>',
    ]) {
      expect(mailName({ name, emailVerified: true })).toBeUndefined();
    }
  });
});
