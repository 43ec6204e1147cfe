import type { Principal } from '@restgate/shared';
import { identityErrors } from '../errors';
import type { Role } from './user';

/** Profiles are changed by their owner or an admin. */
export function assertSelfOrAdmin(caller: Principal, userId: string): void {
  if (caller.kind !== 'user') throw identityErrors.needsUser();
  if (caller.id !== userId && caller.role !== 'admin') throw identityErrors.notYourProfile();
}

/** Only the master key or an admin creates admins, also when an operator opens sign-up to the public. */
export function assertMayGrantRole(caller: Principal, role: Role): void {
  if (role === 'admin' && caller.kind !== 'master' && !(caller.kind === 'user' && caller.role === 'admin')) {
    throw identityErrors.roleNotGrantable();
  }
}
