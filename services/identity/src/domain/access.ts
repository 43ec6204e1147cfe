import type { AppError, Principal } from '@restgate/shared';
import { identityErrors } from '../errors';
import type { Role } from './user';

/** A user's profile and sessions are their own business or an admin's; `refused` is the 403 of anyone else. */
export function assertSelfOrAdmin(caller: Principal, userId: string, refused: () => AppError = identityErrors.notYourProfile): void {
  if (caller.kind !== 'user') throw identityErrors.needsUser();
  if (caller.id !== userId && caller.role !== 'admin') throw refused();
}

/** Only the master key or an admin creates admins, also when an operator opens sign-up to the public. */
export function assertMayGrantRole(caller: Principal, role: Role): void {
  if (role === 'admin' && caller.kind !== 'master' && !(caller.kind === 'user' && caller.role === 'admin')) {
    throw identityErrors.roleNotGrantable();
  }
}
