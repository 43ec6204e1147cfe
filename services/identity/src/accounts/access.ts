import { assertAdminRights, type AppError, type Principal } from '@restgate/shared';
import { identityErrors } from '../errors';
import type { AdminSignUp } from './accounts-deps';
import type { Role } from './user';

/** A user's profile and sessions are their own business or an admin's; `refused` is the 403 of anyone else. */
export function assertSelfOrAdmin(caller: Principal, userId: string, refused: () => AppError = identityErrors.notYourProfile): void {
  if (caller.kind !== 'user') throw identityErrors.needsUser();
  if (caller.id !== userId) assertAdminRights(caller, refused);
}

/**
 * Who creates admins is ADMIN_SIGN_UP's to say, also when an operator opens sign-up to the public:
 * `master` the master key or an admin, `admin` only an admin, `off` no one.
 */
export function assertMayGrantRole(caller: Principal, role: Role, adminSignUp: AdminSignUp): void {
  if (role !== 'admin') return;
  if (adminSignUp === 'off') throw identityErrors.roleNotGrantable();
  if (adminSignUp === 'master' && caller.kind === 'master') return;
  assertAdminRights(caller, identityErrors.roleNotGrantable);
}
