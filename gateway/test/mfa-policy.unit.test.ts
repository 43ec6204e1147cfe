import type { Principal } from '@restgate/shared';
import { assertMfaPolicy, parseMfaRequiredRoles } from '../src/mfa-policy';

const admin = (amr?: string[]): Principal => ({ kind: 'user', id: 'a'.repeat(24), role: 'admin', sid: 's', ...(amr ? { amr } : {}) });
const user = (amr?: string[]): Principal => ({ kind: 'user', id: 'b'.repeat(24), role: 'user', sid: 's', ...(amr ? { amr } : {}) });

function refusal(fn: () => void): { status?: number; code?: string; headers?: Record<string, string> } | undefined {
  try {
    fn();
    return undefined;
  } catch (err) {
    return err as { status: number; code: string; headers: Record<string, string> };
  }
}

describe('MFA_REQUIRED_ROLES at the gateway', () => {
  test('when admins need a second factor and an admin token has only a password, then an admin route answers 401 mfa_required (RFC 9470)', () => {
    const err = refusal(() => assertMfaPolicy(['admin'], 'admin', admin(['pwd'])));

    expect(err).toMatchObject({ status: 401, code: 'mfa_required' });
    expect(err?.headers?.['WWW-Authenticate']).toBe('Bearer realm="restgate", error="insufficient_user_authentication"');
  });

  test('when the admin token has no amr at all (issued before the claim), then it is refused too', () => {
    expect(refusal(() => assertMfaPolicy(['admin'], 'admin', admin()))).toMatchObject({ code: 'mfa_required' });
  });

  test.each([[['pwd', 'otp']], [['pwd', 'mfa']], [['github', 'otp']]])('when the admin token has amr %j, then the admin route passes', (amr) => {
    expect(refusal(() => assertMfaPolicy(['admin'], 'admin', admin(amr)))).toBeUndefined();
  });

  test('when the route is not admin-level, then a one-factor admin passes (enrolment must stay reachable)', () => {
    for (const level of ['user', 'public', 'user+basic'] as const) {
      expect(refusal(() => assertMfaPolicy(['admin'], level, admin(['pwd'])))).toBeUndefined();
    }
  });

  test('when no role is listed, then nothing is required', () => {
    expect(refusal(() => assertMfaPolicy([], 'admin', admin(['pwd'])))).toBeUndefined();
  });

  test('when only users are listed, then a one-factor admin passes and a one-factor user is refused on an admin route', () => {
    expect(refusal(() => assertMfaPolicy(['user'], 'admin', admin(['pwd'])))).toBeUndefined();
    expect(refusal(() => assertMfaPolicy(['user'], 'admin', user(['pwd'])))).toMatchObject({ code: 'mfa_required' });
  });

  test('when the principal is the master key or anonymous, then the rule does not apply (assertAccess decides)', () => {
    expect(refusal(() => assertMfaPolicy(['admin'], 'admin', { kind: 'master' }))).toBeUndefined();
    expect(refusal(() => assertMfaPolicy(['admin'], 'admin', { kind: 'anonymous' }))).toBeUndefined();
  });

  test('parses a comma list with spaces and empties', () => {
    expect(parseMfaRequiredRoles(' admin, ,user ')).toEqual(['admin', 'user']);
    expect(parseMfaRequiredRoles('')).toEqual([]);
  });
});
