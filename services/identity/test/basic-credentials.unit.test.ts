import { parseBasicCredentials } from '../src/accounts/basic-credentials';

const encode = (text: string) => Buffer.from(text, 'utf8').toString('base64');

describe('parseBasicCredentials', () => {
  test('reads e-mail and password, normalizing the e-mail only', () => {
    expect(parseBasicCredentials(`Basic ${encode(' Ada@Example.com :Pass Word ')}`)).toEqual({
      email: 'ada@example.com',
      password: 'Pass Word ',
    });
  });

  test('splits at the first colon, so passwords may hold colons', () => {
    expect(parseBasicCredentials(`Basic ${encode('a@b.co:x:y:z')}`)).toEqual({ email: 'a@b.co', password: 'x:y:z' });
  });

  test('accepts the scheme in any case and UTF-8 passwords', () => {
    expect(parseBasicCredentials(`basic ${encode('a@b.co:pässwörd✓')}`)).toEqual({ email: 'a@b.co', password: 'pässwörd✓' });
  });

  test.each([
    ['missing', undefined],
    ['empty', ''],
    ['Bearer', 'Bearer abc'],
    ['no credentials', 'Basic '],
    ['not base64', 'Basic @@@@'],
    ['bad base64 length', 'Basic YWJj='],
    ['no colon', `Basic ${encode('a@b.co')}`],
    ['empty e-mail', `Basic ${encode(':secret')}`],
    ['empty password', `Basic ${encode('a@b.co:')}`],
    ['two tokens', `Basic ${encode('a@b.co:x')} ${encode('c@d.co:y')}`],
  ])('is null when the header is %s', (_label, header) => {
    expect(parseBasicCredentials(header)).toBeNull();
  });
});
