import { errors, hasSecondFactor, type Principal } from '@restgate/shared';
import type { AccessLevel } from '@restgate/shared/http';

/**
 * MFA_REQUIRED_ROLES: a user token whose role is listed passes an admin-level route only when its
 * session was opened with a second factor (`amr` has `otp` or `mfa`). Otherwise 401 `mfa_required`
 * with RFC 9470's `WWW-Authenticate`, so the client signs in again with its code. Other levels are
 * left alone: the user must still reach enrolment (`POST /users/me/mfa/totp`) without one.
 */
export function assertMfaPolicy(requiredRoles: readonly string[], level: AccessLevel, principal: Principal): void {
  if (level !== 'admin' || principal.kind !== 'user') return;
  if (!requiredRoles.includes(principal.role) || hasSecondFactor(principal)) return;
  throw errors.mfaRequired(
    `A ${principal.role} token needs a second factor here: sign in again with a one-time code (POST /auth, then POST /auth/mfa).`,
  );
}

/**
 * The principal the services get: one whose role MFA_REQUIRED_ROLES lists, from a session without a
 * second factor, is marked, so that no service lets that role's rights override ownership (an
 * admin renaming others, ending their sessions, editing their records) on routes of other levels.
 */
export function withMfaPolicy(requiredRoles: readonly string[], principal: Principal): Principal {
  if (principal.kind !== 'user' || !requiredRoles.includes(principal.role) || hasSecondFactor(principal)) return principal;
  return { ...principal, needsSecondFactor: true };
}

/** "admin, user" → ['admin', 'user']. */
export function parseMfaRequiredRoles(value: string): string[] {
  return value
    .split(',')
    .map((role) => role.trim())
    .filter(Boolean);
}
