import { entityTag } from '@restgate/shared/http';
import type { ListingQuery } from '@restgate/shared/data';
import type { IdentityDeps } from './identity-deps';
import { isMfaOn } from './mfa';
import { getUser, type UserRecord } from './user';

/** The strong ETag of a user: changes with every change of the stored user. */
export const userTag = (user: Pick<UserRecord, 'id' | 'version'>) => entityTag(user.id, user.version ?? 0);

/** The caller's own profile, with whether MFA is on (turning it on or off moves the user's version, so the ETag follows). */
export async function getOwnUser(deps: Pick<IdentityDeps, 'users' | 'mfa'>, userId: string): Promise<{ user: UserRecord; totp: boolean }> {
  const user = await getUser(deps, userId);
  return { user, totp: await isMfaOn(deps, user.id) };
}

/** One page of users, without their password hashes. */
export function listUsers(deps: Pick<IdentityDeps, 'users'>, query: ListingQuery) {
  return deps.users.list(query);
}
