import { redactUrl, urlRedactor } from '../src/http/http-app';

describe('redactUrl', () => {
  test('when access_token is in the query, then its value is redacted', () => {
    expect(redactUrl('/articles?q=a&access_token=secret&page=2')).toBe('/articles?q=a&access_token=[redacted]&page=2');
  });

  test('when the name is percent-encoded, then it is redacted all the same', () => {
    expect(redactUrl('/articles?access%5Ftoken=secret')).toBe('/articles?access%5Ftoken=[redacted]');
  });

  test('when other parameters look alike, then they are kept', () => {
    expect(redactUrl('/x?my_access_token=a&access_tokens=b&bad=%E0%A4%A')).toBe('/x?my_access_token=a&access_tokens=b&bad=%E0%A4%A');
  });
});

describe('urlRedactor', () => {
  const redact = urlRedactor([
    { path: '/password-resets/:token', secretParams: ['token'] },
    { path: '/email-verifications/:token', secretParams: ['token'] },
    { path: '/articles/:id' },
  ]);
  const token = 'Ny6H5rDL_-fpy6fHPjQmRIcUxlTr8_EDslwduIu52to';

  test.each([
    ['/password-resets/abcDEF123', '/password-resets/[redacted]'],
    ['/password-resets/abcDEF123/', '/password-resets/[redacted]'],
    ['/Password-Resets/abc?x=1&access_token=t', '/password-resets/[redacted]?[redacted]'],
    ['/password%2Dresets/abc', '/password-resets/[redacted]'],
    ['/password-resets/%ZZabc', '/password-resets/[redacted]'],
    ['/email-verifications/abc', '/email-verifications/[redacted]'],
  ])('when a secret parameter is in the path (%s), then the log shows %s', (url, shown) => {
    expect(redact(url)).toBe(shown);
  });

  test.each([
    `//password-resets/${token}`,
    `/password-resets//${token}`,
    `/password-resets/${token}//`,
    `/password-resets/${token}/extra`,
    `/PASSWORD-RESETS/${token}`,
    `/%70assword-resets/${token}`,
    `/password-resets%2F${token}`,
    `/password%252Dresets/${token}`,
    `/x/../password-resets/${token}`,
    `/password-resets\\${token}`,
    `/api/password-resets/${token}`,
    `/\uFF50\uFF41\uFF53\uFF53\uFF57\uFF4F\uFF52\uFF44-resets/${token}`,
    `/password-resets?next=/${token}`,
    `/email-verifications//${token.toLowerCase()}`,
  ])('when a path names a secret route in any spelling (%s), then nothing after the name is shown', (url) => {
    const shown = redact(url);

    expect(shown).toMatch(/^\/(x\/\.\.\/|api\/|\/)?(password-resets|email-verifications)(\/\[redacted\]|\?\[redacted\])$/);
  });

  test.each([
    [`/reset/${token}`, '/reset/[redacted]'],
    [`/reset/${encodeURIComponent(token).replace(/[A-Za-z]/g, (c) => `%${c.charCodeAt(0).toString(16)}`)}`, '/reset/[redacted]'],
    [`/articles?q=x&next=${token}`, '/articles?q=x&next=[redacted]'],
  ])('when a token-shaped run is anywhere else (%s), then it is redacted', (url, shown) => {
    expect(redact(url)).toBe(shown);
  });

  test.each([
    '/password-resets',
    '/password-resets/',
    '/articles/abc',
    '/articles/0123456789abcdef01234567',
    '/users/abc?q=1',
    '/no-such-route/a-long-lowercase-slug-of-forty-two-chars-x',
    '/articles?q=averyveryverylongsearchwordwithoutanycapitals',
  ])('when the path holds no secret (%s), then it is kept', (url) => {
    expect(redact(url)).toBe(url);
  });

  test('when a path is long and made to make a matcher backtrack, then redacting it stays fast', () => {
    const started = performance.now();
    for (const c of ['a', 'A', '1', '-']) redact(`/${c.repeat(16_000)}?x=${'%25'.repeat(2_000)}`);

    expect(performance.now() - started).toBeLessThan(200);
  });
});
