import { createAuthenticator } from '../src/authenticate';
import { aUserToken, anObjectId, TEST_AUDIENCE, TEST_ISSUER, TEST_JWT_SECRET, TEST_MASTER_KEY } from './support/tokens';

const authenticate = createAuthenticator({
  masterKey: TEST_MASTER_KEY,
  jwtSecret: TEST_JWT_SECRET,
  issuer: TEST_ISSUER,
  audience: TEST_AUDIENCE,
});

describe('createAuthenticator', () => {
  test('the master key is the master principal', () => {
    expect(authenticate(TEST_MASTER_KEY)).toEqual({ kind: 'master' });
  });

  test.each([
    ['a prefix', TEST_MASTER_KEY.slice(0, -1)],
    ['a longer key', `${TEST_MASTER_KEY}0`],
    ['empty', ''],
    ['another case', TEST_MASTER_KEY.toUpperCase()],
  ])('the master key with %s is refused as an invalid token', (_label, key) => {
    expect(() => authenticate(key)).toThrow(expect.objectContaining({ status: 401, code: 'invalid_token' }));
  });

  test('a valid user token is the user principal with its id and role', () => {
    const id = anObjectId();

    expect(authenticate(aUserToken({ sub: id, role: 'admin' }))).toEqual({ kind: 'user', id, role: 'admin' });
  });

  test('an expired token says so', () => {
    expect(() => authenticate(aUserToken({ expiresIn: -1 }))).toThrow('The access token has expired.');
  });

  test('an HS512 token signed with the right secret is refused: the algorithm is pinned', () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const jwt = require('jsonwebtoken') as typeof import('jsonwebtoken');
    const token = jwt.sign({ sub: anObjectId(), role: 'user' }, TEST_JWT_SECRET, {
      algorithm: 'HS512',
      issuer: TEST_ISSUER,
      audience: TEST_AUDIENCE,
      expiresIn: 60,
    });

    expect(() => authenticate(token)).toThrow(expect.objectContaining({ code: 'invalid_token' }));
  });
});
