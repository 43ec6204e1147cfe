import { redactUrl, urlRedactor } from '../src/http-app';

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
    { path: '/articles/:id' },
  ]);

  test.each([
    ['/password-resets/abcDEF123', '/password-resets/[redacted]'],
    ['/password-resets/abcDEF123/', '/password-resets/[redacted]/'],
    ['/Password-Resets/abc?x=1&access_token=t', '/Password-Resets/[redacted]?x=1&access_token=[redacted]'],
    ['/password%2Dresets/abc', '/password%2Dresets/[redacted]'],
    ['/password-resets/%ZZabc', '/password-resets/[redacted]'],
  ])('when a secret parameter is in the path (%s), then the log shows %s', (url, shown) => {
    expect(redact(url)).toBe(shown);
  });

  test.each(['/password-resets', '/password-resets/a/b', '/articles/abc', '/users/abc?q=1'])(
    'when the path matches no secret parameter (%s), then it is kept',
    (url) => {
      expect(redact(url)).toBe(url);
    },
  );
});
