import type { Principal } from '@restgate/shared';
import { identityErrors } from '../errors';
import { resolveUserId } from './access';
import type { IdentityDeps } from './identity-deps';
import { fullView, publicView, type FullUserView, type PublicUserView, type UserRecord } from './user';

async function loadUser(deps: Pick<IdentityDeps, 'users'>, id: string): Promise<UserRecord> {
  const user = await deps.users.findById(id);
  if (!user) throw identityErrors.userNotFound();
  return user;
}

/** What anyone may see of a user. */
export async function getPublicUser(deps: Pick<IdentityDeps, 'users'>, id: string): Promise<PublicUserView> {
  return publicView(await loadUser(deps, id));
}

/** The caller's own profile. */
export async function getOwnUser(deps: Pick<IdentityDeps, 'users'>, caller: Principal): Promise<FullUserView> {
  return fullView(await loadUser(deps, resolveUserId('me', caller)));
}
