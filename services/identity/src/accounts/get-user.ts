import { createHash } from 'node:crypto';
import { assertIfMatch, entityTag } from '@restgate/shared/http';
import type { ListingQuery } from '@restgate/shared/data';
import type { AccountsDeps } from './accounts-deps';
import { getUser, type UserRecord } from './user';

/** The strong ETag of a user: changes with every change of the stored user. */
export const userTag = (user: Pick<UserRecord, 'id' | 'version'>) => entityTag(user.id, user.version ?? 0);

/**
 * The strong ETag of the public view (`{ id, name, picture }`, in that order, as
 * `GET /users/:id` shows it): made of what it shows, so password, MFA or verification events,
 * which move the user's version, don't show to whoever polls another user's profile.
 */
export function publicTag(user: Pick<UserRecord, 'id' | 'name' | 'picture'>): string {
  const shown = JSON.stringify({ id: user.id, name: user.name, picture: user.picture });
  return `"p.${createHash('sha256').update(shown).digest('base64url').slice(0, 27)}"`;
}

/** A write's `If-Match` may name the user's tag or, from `GET /users/:id`, the public view's: 412 unless one is current. */
export function assertUserIfMatch(ifMatch: string | undefined, user: UserRecord): void {
  assertIfMatch(ifMatch, [userTag(user), publicTag(user)]);
}

/** The caller's own profile, with whether MFA is on (turning it on or off moves the user's version, so the ETag follows). */
export async function getOwnUser(
  deps: Pick<AccountsDeps, 'users' | 'secondFactor'>,
  userId: string,
): Promise<{ user: UserRecord; totp: boolean }> {
  const user = await getUser(deps, userId);
  return { user, totp: await deps.secondFactor.isOn(user.id) };
}

/** One page of users, without their password hashes. */
export function listUsers(deps: Pick<AccountsDeps, 'users'>, query: ListingQuery) {
  return deps.users.list(query);
}
