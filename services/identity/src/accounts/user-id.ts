import type { Principal } from '@restgate/shared';
import { identityErrors } from '../errors';

/**
 * The user id a path names (`/users/me…` or `/users/:id…`), `me` being the calling user; undefined
 * for `me` without a user principal (a route an operator opened to HTTP Basic alone). Hex ids are
 * case-insensitive; the stored form is lower case.
 */
export function pathUserId(idParam: string | undefined, caller: Principal): string | undefined {
  if (idParam !== undefined && idParam !== 'me') return idParam.toLowerCase();
  return caller.kind === 'user' ? caller.id : undefined;
}

/** `pathUserId`, where `me` needs a user token: the route table requires one, and this holds even if an operator's policy opens the route. */
export function resolveUserId(idParam: string | undefined, caller: Principal): string {
  const id = pathUserId(idParam, caller);
  if (id === undefined) throw identityErrors.needsUser();
  return id;
}
