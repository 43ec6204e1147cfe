import type { Principal } from '@restgate/shared';
import { identityErrors } from '../errors';
import type { Role } from './user';

/**
 * The user id a path names: `me` is the calling user. The route table already requires a user
 * for these paths; this holds even if an operator's policy opens one.
 */
export function resolveUserId(idParam: string, caller: Principal): string {
  // Hex ids are case-insensitive; the stored form is lower case.
  if (idParam !== 'me') return idParam.toLowerCase();
  if (caller.kind !== 'user') throw identityErrors.needsUser();
  return caller.id;
}

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
