import { actsAsAdmin, errors, type Principal } from '@restgate/shared';
import { identityErrors } from '../errors';
import { assertMayGrantRole, assertSelfOrAdmin } from './access';
import type { AccountsDeps } from './accounts-deps';
import { assertUserIfMatch } from './get-user';
import { endSessionsOfUser } from './sessions';
import { getUser, type Role, type UserRecord } from './user';

export interface ProfileChanges {
  name?: string;
  picture?: string;
  /** An admin's to change (ADMIN_SIGN_UP says who may make admins); anyone else's is ignored. */
  role?: Role;
}

/**
 * PUT and PATCH alike: the fields given change, the others stay. With `ifMatch` (the client's
 * `If-Match`) the change happens only at the version it names: 412 otherwise, nothing changed.
 */
export async function updateProfile(
  deps: Pick<AccountsDeps, 'users' | 'sessions' | 'revocations' | 'adminSignUp'>,
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
  let before: UserRecord | undefined;
  if (changes.role !== undefined && actsAsAdmin(caller)) {
    assertMayGrantRole(caller, changes.role, deps.adminSignUp);
    before = await getUser(deps, id);
    if (before.role !== changes.role) set.role = changes.role;
  }
  if (ifMatch !== undefined) {
    const current = before ?? (await getUser(deps, id));
    assertUserIfMatch(ifMatch, current);
    version = current.version ?? 0;
  }
  const user = Object.keys(set).length > 0 ? await deps.users.update(id, set, version) : await deps.users.findById(id);
  if (!user) {
    // Changed between the check and the write (the write names the version it checked), or gone.
    if (version !== undefined && (await deps.users.findById(id))) throw errors.preconditionFailed();
    throw identityErrors.userNotFound();
  }
  // Access tokens carry the role: the user's sessions end, and the next sign-in has the new one.
  if (set.role !== undefined) await endSessionsOfUser(deps, id);
  return user;
}
