import type { Principal } from '@restgate/shared';
import { assertMayGrantRole, assertSelfOrAdmin } from '../src/domain/access';
import { resolveUserId } from '../src/http/user-id';

const ID = '65f0a1b2c3d4e5f601234567';
const user: Principal = { kind: 'user', id: ID, role: 'user' };
const admin: Principal = { kind: 'user', id: 'f'.repeat(24), role: 'admin' };
const master: Principal = { kind: 'master' };
const anonymous: Principal = { kind: 'anonymous' };

const statusOf = (fn: () => unknown) => {
  try {
    fn();
    return 'ok';
  } catch (err) {
    return (err as { status: number }).status;
  }
};

describe('resolveUserId', () => {
  test('"me" is the calling user; other ids pass through in lower case', () => {
    expect(resolveUserId('me', user)).toBe(ID);
    expect(resolveUserId(ID.toUpperCase(), anonymous)).toBe(ID);
  });

  test('"me" without a user principal is a 401', () => {
    expect(statusOf(() => resolveUserId('me', master))).toBe(401);
    expect(statusOf(() => resolveUserId('me', anonymous))).toBe(401);
  });
});

describe('assertSelfOrAdmin', () => {
  test.each([
    ['the user themself', user, 'ok'],
    ['an admin', admin, 'ok'],
    ['another user', { kind: 'user', id: 'a'.repeat(24), role: 'user' } as Principal, 403],
    ['the master key', master, 401],
    ['nobody', anonymous, 401],
  ])('%s → %s', (_label, caller, expected) => {
    expect(statusOf(() => assertSelfOrAdmin(caller, ID))).toBe(expected);
  });
});

describe('assertMayGrantRole', () => {
  test.each([
    [master, 'admin', 'ok'],
    [admin, 'admin', 'ok'],
    [user, 'admin', 403],
    [anonymous, 'admin', 403],
    [anonymous, 'user', 'ok'],
  ] as const)('%o granting %s → %s', (caller, role, expected) => {
    expect(statusOf(() => assertMayGrantRole(caller, role))).toBe(expected);
  });
});
