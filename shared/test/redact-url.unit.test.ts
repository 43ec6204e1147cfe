import { redactUrl } from '../src/http-app';

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
