import { errors, type Principal } from '@restgate/shared';
import { identityErrors } from '../errors';
import { assertSelfOrAdmin } from './access';
import type { AccountsDeps } from './accounts-deps';
import { assertUserIfMatch } from './get-user';
import { getUser, type UserRecord } from './user';

export interface ProfileChanges {
  name?: string;
  picture?: string;
}

/**
 * PUT and PATCH alike: the fields given change, the others stay. With `ifMatch` (the client's
 * `If-Match`) the change happens only at the version it names: 412 otherwise, nothing changed.
 */
export async function updateProfile(
  deps: Pick<AccountsDeps, 'users'>,
  caller: Principal,
  id: string,
  changes: ProfileChanges,
  ifMatch?: string,
): Promise<UserRecord> {
  assertSelfOrAdmin(caller, id);
  const set: ProfileChanges = {};
  if (changes.name !== undefined) set.name = changes.name;
  if (changes.picture !== undefined) set.picture = changes.picture;
  let version: number | undefined;
  if (ifMatch !== undefined) {
    const current = await getUser(deps, id);
    assertUserIfMatch(ifMatch, current);
    version = current.version ?? 0;
  }
  const user = Object.keys(set).length > 0 ? await deps.users.update(id, set, version) : await deps.users.findById(id);
  if (!user) {
    // Changed between the check and the write (the write names the version it checked), or gone.
    if (version !== undefined && (await deps.users.findById(id))) throw errors.preconditionFailed();
    throw identityErrors.userNotFound();
  }
  return user;
}
