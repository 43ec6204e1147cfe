import jwt from 'jsonwebtoken';
import type { RevocationList } from '@restgate/shared/limits';
import { createAuthenticator } from '../src/authenticate';
import { aUserToken, anObjectId, TEST_AUDIENCE, TEST_ISSUER, TEST_JWT_SECRET, TEST_MASTER_KEY } from './support/tokens';

const MAX_LIFETIME = 900;
const options = {
  masterKey: TEST_MASTER_KEY,
  jwtSecret: TEST_JWT_SECRET,
  issuer: TEST_ISSUER,
  audience: TEST_AUDIENCE,
  maxLifetimeSeconds: MAX_LIFETIME,
};
const authenticate = createAuthenticator(options);

/** A token with the real secret and any `iat`/`exp` (seconds from now). */
function tokenIssued(iatFromNow: number, expFromNow: number, claims: Record<string, unknown> = {}): string {
  const now = Math.floor(Date.now() / 1000);
  const sub = anObjectId();
  const payload: Record<string, unknown> = {
    sub,
    id: sub,
    role: 'user',
    sid: anObjectId(),
    iat: now + iatFromNow,
    exp: now + expFromNow,
    iss: TEST_ISSUER,
    aud: TEST_AUDIENCE,
    ...claims,
  };
  for (const key of Object.keys(payload)) if (payload[key] === undefined) delete payload[key];
  // noTimestamp (which drops any iat): jsonwebtoken would otherwise add one to a token meant to lack it.
  return jwt.sign(payload, TEST_JWT_SECRET, { algorithm: 'HS256', noTimestamp: payload.iat === undefined });
}

/** A revocation list held in memory, as the gateway's copy would be once loaded. */
function listOf(ended: { sessions?: string[]; users?: Array<[string, number]> }, loaded = true): RevocationList {
  return {
    isRevoked: ({ sessionId, userId, credentialsEpoch }) =>
      (ended.sessions ?? []).includes(sessionId) || (ended.users ?? []).some(([u, before]) => u === userId && credentialsEpoch < before),
    loaded: () => loaded,
    whenLoaded: async () => loaded,
    size: () => 0,
    onAdded: () => () => undefined,
    close: async () => {},
  };
}

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

    const sid = anObjectId();

    expect(authenticate(aUserToken({ sub: id, role: 'admin', sid }))).toEqual({ kind: 'user', id, role: 'admin', sid });
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

  test('a token signed with the real secret and a 100-year exp is refused', () => {
    expect(() => authenticate(tokenIssued(0, 100 * 365 * 86_400))).toThrow(expect.objectContaining({ status: 401, code: 'invalid_token' }));
  });

  test('a token whose exp − iat is one second over the longest lifetime is refused; at the lifetime it passes', () => {
    expect(() => authenticate(tokenIssued(-10, MAX_LIFETIME - 9))).toThrow(expect.objectContaining({ status: 401 }));
    expect(authenticate(tokenIssued(-10, MAX_LIFETIME - 10))).toMatchObject({ kind: 'user' });
  });

  test('a token issued longer ago than the longest lifetime is refused even with a short exp − iat still ahead', () => {
    expect(() => authenticate(tokenIssued(-(MAX_LIFETIME + 5), 60, {}))).toThrow(expect.objectContaining({ status: 401 }));
  });

  test('a token issued in the future (beyond clock skew) or without iat or sid is refused', () => {
    expect(() => authenticate(tokenIssued(120, 300))).toThrow(expect.objectContaining({ status: 401 }));
    expect(() => authenticate(tokenIssued(0, 60, { iat: undefined }))).toThrow(expect.objectContaining({ status: 401 }));
    expect(() => authenticate(tokenIssued(0, 60, { sid: undefined }))).toThrow(expect.objectContaining({ status: 401 }));
  });

  test("a token of an ended session is 401; another session's token of the same user passes", () => {
    const sub = anObjectId();
    const ended = anObjectId();
    const check = createAuthenticator({ ...options, revocations: listOf({ sessions: [ended] }) });

    expect(() => check(aUserToken({ sub, sid: ended }))).toThrow(expect.objectContaining({ status: 401, code: 'invalid_token' }));
    expect(check(aUserToken({ sub }))).toMatchObject({ kind: 'user', id: sub });
  });

  test("a user's tokens of sessions opened with credentials older than the user-wide revocation are 401; newer ones pass", () => {
    const sub = anObjectId();
    const changedAt = Date.now();
    const check = createAuthenticator({ ...options, revocations: listOf({ users: [[sub, changedAt]] }) });

    expect(() => check(aUserToken({ sub }))).toThrow(expect.objectContaining({ status: 401 }));
    expect(() => check(tokenIssued(0, 600, { sub, id: sub, cep: changedAt - 1 }))).toThrow(expect.objectContaining({ status: 401 }));
    expect(check(tokenIssued(0, 600, { sub, id: sub, cep: changedAt }))).toMatchObject({ kind: 'user', id: sub });
    expect(check(aUserToken())).toMatchObject({ kind: 'user' });
  });

  test('a credentials epoch that is not a number is refused', () => {
    expect(() => authenticate(tokenIssued(0, 600, { cep: '0' }))).toThrow(expect.objectContaining({ status: 401, code: 'invalid_token' }));
  });

  test('while the list was never loaded, user tokens are 503 and the master key still passes', () => {
    const check = createAuthenticator({ ...options, revocations: listOf({}, false) });

    expect(() => check(aUserToken())).toThrow(expect.objectContaining({ status: 503 }));
    expect(check(TEST_MASTER_KEY)).toEqual({ kind: 'master' });
  });
});
