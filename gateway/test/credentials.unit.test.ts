import { parseAuthorization, singleCredential } from '@restgate/shared/http';
import { takeAccessTokens, takeJsonAccessToken } from '../src/credentials';

describe('takeAccessTokens', () => {
  test('removes the pair and keeps every other pair exactly', () => {
    expect(takeAccessTokens('a=1&access_token=tok&email[$ne]=x&b=%20+')).toEqual({ tokens: ['tok'], rest: 'a=1&email[$ne]=x&b=%20+' });
  });

  test('decodes the name and value as a form parser would', () => {
    expect(takeAccessTokens('access%5Ftoken=a%2Bb+c')).toEqual({ tokens: ['a+b c'], rest: '' });
    expect(takeAccessTokens('access_token=a+b')).toEqual({ tokens: ['a b'], rest: '' });
    expect(takeAccessTokens('access_token=tok-é_1.~')).toEqual({ tokens: ['tok-é_1.~'], rest: '' });
  });

  test('returns every occurrence, empty ones and a bare name included', () => {
    expect(takeAccessTokens('access_token=&access_token&x=1&access_token=t')).toEqual({ tokens: ['', '', 't'], rest: 'x=1' });
  });

  test('leaves look-alikes alone', () => {
    const encoded = 'access_token[]=a&ACCESS_TOKEN=b&my_access_token=c&access+token=d&?access_token=e';

    expect(takeAccessTokens(encoded)).toEqual({ tokens: [], rest: encoded });
  });

  test('returns the input itself when there is no token, empty segments included', () => {
    expect(takeAccessTokens('a=1&&b')).toEqual({ tokens: [], rest: 'a=1&&b' });
    expect(takeAccessTokens('')).toEqual({ tokens: [], rest: '' });
  });
});

describe('takeJsonAccessToken', () => {
  test('removes a top-level access_token only', () => {
    const body = { access_token: 'tok', title: 'x', nested: { access_token: 'kept' } };

    expect(takeJsonAccessToken(body)).toEqual({ tokens: ['tok'], rest: { title: 'x', nested: { access_token: 'kept' } } });
  });

  test('keeps a body without a token as the same value', () => {
    const body = { title: 'x' };

    expect(takeJsonAccessToken(body).rest).toBe(body);
    expect(takeJsonAccessToken([{ access_token: 'x' }])).toEqual({ tokens: [], rest: [{ access_token: 'x' }] });
    expect(takeJsonAccessToken('access_token')).toEqual({ tokens: [], rest: 'access_token' });
  });

  test('a null token is absent but still removed; a non-string one is presented (and will fail)', () => {
    expect(takeJsonAccessToken({ access_token: null, a: 1 })).toEqual({ tokens: [], rest: { a: 1 } });
    expect(takeJsonAccessToken({ access_token: { $ne: '' } })).toEqual({ tokens: ['{"$ne":""}'], rest: {} });
  });
});

describe('parseAuthorization', () => {
  test.each([
    [undefined, undefined],
    ['Bearer abc.def', { scheme: 'bearer', token: 'abc.def' }],
    ['bearer   abc ', { scheme: 'bearer', token: 'abc' }],
    ['Bearer', { scheme: 'bearer', token: '' }],
    ['Basic dXNlcjpwYXNz', { scheme: 'basic' }],
    ['Token abc', { scheme: 'other' }],
    ['', { scheme: 'other' }],
  ])('%j → %j', (header, expected) => {
    expect(parseAuthorization(header)).toEqual(expected);
  });
});

describe('singleCredential', () => {
  test('no token is undefined; one token is that token', () => {
    expect(singleCredential([])).toBeUndefined();
    expect(singleCredential([{ place: 'query', token: 't' }])).toEqual({ place: 'query', token: 't' });
  });

  test('empty access_token values do not count, an empty Bearer does', () => {
    expect(
      singleCredential([
        { place: 'query', token: '' },
        { place: 'body', token: 't' },
      ]),
    ).toEqual({ place: 'body', token: 't' });
    expect(singleCredential([{ place: 'bearer', token: '' }])).toEqual({ place: 'bearer', token: '' });
  });

  test.each([
    [
      [
        { place: 'query', token: 'a' },
        { place: 'body', token: 'a' },
      ],
    ],
    [
      [
        { place: 'body', token: 'a' },
        { place: 'bearer', token: 'b' },
      ],
    ],
    [
      [
        { place: 'query', token: 'a' },
        { place: 'query', token: 'a' },
      ],
    ],
  ] as const)('two tokens are a 400 credential_ambiguous: %j', (presented) => {
    expect(() => singleCredential([...presented])).toThrow(expect.objectContaining({ status: 400, code: 'credential_ambiguous' }));
  });
});
