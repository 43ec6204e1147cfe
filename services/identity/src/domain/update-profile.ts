import type { Principal } from '@restgate/shared';
import { identityErrors } from '../errors';
import { assertSelfOrAdmin, resolveUserId } from './access';
import type { IdentityDeps } from './identity-deps';
import { fullView, type FullUserView } from './user';

export interface ProfileChanges {
  name?: string;
  picture?: string;
}

/** PUT and PATCH alike: the fields given change, the others stay. */
export async function updateProfile(
  deps: Pick<IdentityDeps, 'users'>,
  caller: Principal,
  idParam: string,
  changes: ProfileChanges,
): Promise<FullUserView> {
  const id = resolveUserId(idParam, caller);
  assertSelfOrAdmin(caller, id);
  const set: ProfileChanges = {};
  if (changes.name !== undefined) set.name = changes.name;
  if (changes.picture !== undefined) set.picture = changes.picture;
  const user = Object.keys(set).length > 0 ? await deps.users.update(id, set) : await deps.users.findById(id);
  if (!user) throw identityErrors.userNotFound();
  return fullView(user);
}
