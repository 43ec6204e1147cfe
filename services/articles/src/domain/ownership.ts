import { errors, type Principal } from '@restgate/shared';

export type UserPrincipal = Extract<Principal, { kind: 'user' }>;

/**
 * The caller must be a user. Routes that create or change owned records are `user` level, but an
 * operator may open one with ROUTE_POLICY: an anonymous or master caller still owns nothing.
 */
export function assertUser(principal: Principal): asserts principal is UserPrincipal {
  if (principal.kind === 'anonymous') throw errors.unauthorized('This route needs a credential.', false);
  if (principal.kind !== 'user') throw errors.forbidden('This route needs a user token.');
}

/** Only the record's owner or an admin may change or delete it. */
export function assertOwnerOrAdmin(principal: Principal, ownerId: string): void {
  assertUser(principal);
  if (principal.role !== 'admin' && principal.id !== ownerId) {
    throw errors.forbidden('Only the owner or an admin may do this.', 'not_owner');
  }
}
