import type { Principal } from '@restgate/shared';
import { assertMayGrantRole, assertSelfOrAdmin } from '../src/accounts/access';
import { resolveUserId } from '../src/accounts/user-id';

const ID = '65f0a1b2c3d4e5f601234567';
const user: Principal = { kind: 'user', id: ID, role: 'user' };
const admin: Principal = { kind: 'user', id: 'f'.repeat(24), role: 'admin' };
const master: Principal = { kind: 'master' };
const anonymous: Principal = { kind: 'anonymous' };
const stepUpAdmin: Principal = { kind: 'user', id: 'e'.repeat(24), role: 'admin', needsSecondFactor: true };

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
    // MFA_REQUIRED_ROLES names admin and the session has no second factor: no rights over others.
    ['an admin without the second factor asked for', stepUpAdmin, 401],
  ])('%s → %s', (_label, caller, expected) => {
    expect(statusOf(() => assertSelfOrAdmin(caller, ID))).toBe(expected);
  });

  test('an admin without the second factor asked for still acts on their own profile', () => {
    expect(statusOf(() => assertSelfOrAdmin(stepUpAdmin, stepUpAdmin.kind === 'user' ? stepUpAdmin.id : ''))).toBe('ok');
  });
});

describe('assertMayGrantRole', () => {
  test.each([
    [master, 'admin', 'master', 'ok'],
    [admin, 'admin', 'master', 'ok'],
    [user, 'admin', 'master', 403],
    [anonymous, 'admin', 'master', 403],
    [anonymous, 'user', 'master', 'ok'],
    [master, 'admin', 'admin', 403],
    [admin, 'admin', 'admin', 'ok'],
    [stepUpAdmin, 'admin', 'admin', 401],
    [master, 'user', 'admin', 'ok'],
    [master, 'admin', 'off', 403],
    [admin, 'admin', 'off', 403],
  ] as const)('%o granting %s under ADMIN_SIGN_UP=%s → %s', (caller, role, setting, expected) => {
    expect(statusOf(() => assertMayGrantRole(caller, role, setting))).toBe(expected);
  });
});
