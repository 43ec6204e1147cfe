import { errors } from '../errors';
import { assertAdminRights, type Principal } from '../principal';
import type { ResourceAccess } from './definition';

export type UserPrincipal = Extract<Principal, { kind: 'user' }>;

/**
 * The caller must be a user. Routes that create or change owned records need a user, but an
 * operator may open one with ROUTE_POLICY: an anonymous or master caller still owns nothing.
 */
export function assertUser(principal: Principal): asserts principal is UserPrincipal {
  if (principal.kind === 'anonymous') throw errors.unauthorized('This route needs a credential.', false);
  if (principal.kind !== 'user') throw errors.forbidden('This route needs a user token.');
}

/** Only the record's owner or an admin (with the second factor MFA_REQUIRED_ROLES asks for) may do this. */
export function assertOwnerOrAdmin(principal: Principal, ownerId: string): void {
  assertUser(principal);
  if (principal.id !== ownerId) assertAdminRights(principal, errors.notOwner);
}

/** Before loading a record: an `owner` operation needs a user (401/403 come before a 404). */
export function assertMayTry(level: ResourceAccess[keyof ResourceAccess], principal: Principal): void {
  if (level === 'owner') assertUser(principal);
}

/** After loading it: an `owner` operation needs its owner or an admin. */
export function assertMayActOn(level: ResourceAccess[keyof ResourceAccess], principal: Principal, ownerId: string): void {
  if (level === 'owner') assertOwnerOrAdmin(principal, ownerId);
}
