import { entityTag } from '@restgate/shared/http';
import { identityErrors } from '../errors';
import type { IdentityDeps } from './identity-deps';
import { isMfaOn } from './mfa';
import { fullView, publicView, type FullUserView, type PublicUserView, type UserRecord } from './user';

async function loadUser(deps: Pick<IdentityDeps, 'users'>, id: string): Promise<UserRecord> {
  const user = await deps.users.findById(id);
  if (!user) throw identityErrors.userNotFound();
  return user;
}

/** A view of a user and the ETag of the user's current version. */
export interface Tagged<V> {
  view: V;
  etag: string;
}

/** The strong ETag of a user: changes with every change of the stored user. */
export const userTag = (user: Pick<UserRecord, 'id' | 'version'>) => entityTag(user.id, user.version ?? 0);

/** What anyone may see of a user. */
export async function getPublicUser(deps: Pick<IdentityDeps, 'users'>, id: string): Promise<Tagged<PublicUserView>> {
  const user = await loadUser(deps, id);
  return { view: publicView(user), etag: userTag(user) };
}

/** The caller's own profile, with whether MFA is on (turning it on or off moves the user's version, so the ETag follows). */
export async function getOwnUser(
  deps: Pick<IdentityDeps, 'users' | 'mfa'>,
  userId: string,
): Promise<Tagged<FullUserView & { mfa: { totp: boolean } }>> {
  const user = await loadUser(deps, userId);
  return { view: { ...fullView(user), mfa: { totp: await isMfaOn(deps, user.id) } }, etag: userTag(user) };
}
