import { bindRoutes, ifMatchOf, type RouteDef, type RouteInput } from '@restgate/shared/http';
import { listingResult, withFields } from '@restgate/shared/data';
import type { userApi } from './accounts.api';
import { changePassword } from './change-password';
import { createUser } from './create-user';
import { deleteUser } from './delete-user';
import { getOwnUser, listUsers, publicTag, userTag } from './get-user';
import type { AccountsDeps } from './accounts-deps';
import { endAllSessions, listSessions } from './manage-sessions';
import { updateProfile, type ProfileChanges } from './update-profile';
import { getUser, type UserRecord } from './user';
import { parseBasicCredentials } from './basic-credentials';
import { pathUserId, resolveUserId } from './user-id';
import { fullView, publicView, sessionView } from './user.views';
import { userSubject } from '../audit/audit-trail';

/** One user's view with its ETag (a GET whose If-None-Match names it is answered 304 by the HTTP layer). */
const tagged = (user: UserRecord, view: unknown) => ({ status: 200, body: view, headers: { ETag: userTag(user) } });

/** The users routes: one handler per spec of `userApi` (src/api.ts). */
export function userRoutes(deps: AccountsDeps, api: ReturnType<typeof userApi>): RouteDef[] {
  // One handler each for the `/users/me…` and `/users/:id…` forms (no id: `me`).
  const update = async ({ principal, params, body, headers }: RouteInput<ProfileChanges, unknown, { id?: string }>) => {
    const user = await updateProfile(deps, principal, resolveUserId(params.id, principal), body, ifMatchOf(headers));
    return tagged(user, fullView(user));
  };
  const remove = async ({ principal, params, headers }: RouteInput<unknown, unknown, { id?: string }>) => {
    await deleteUser(deps, principal, resolveUserId(params.id, principal), ifMatchOf(headers));
    return { status: 204 };
  };
  // The user's token (access_token) names the account and the session that stays signed in.
  const password = async (input: RouteInput<{ password: string }, unknown, { id?: string }>) => {
    const { headers, params, body, principal, clientAddress, signal } = input;
    const credentials = parseBasicCredentials(headers.authorization);
    const user = await changePassword(deps, principal, credentials, pathUserId(params.id, principal), body.password, {
      clientAddress,
      signal,
    });
    await deps.audit.record('auth.password.changed', { outcome: 'success', subject: userSubject(user.id) });
    return { status: 200, body: fullView(user) };
  };

  return bindRoutes(api, {
    createUser: async ({ principal, body, requestId, log, signal }) => ({
      status: 201,
      body: fullView(await createUser(deps, principal, body, { requestId, log, signal })),
    }),
    listUsers: async ({ query, url }) => {
      const { rows, ...page } = await listUsers(deps, query);
      return listingResult(
        rows.map((user) => withFields(fullView(user), query.fields)),
        page,
        query,
        url,
      );
    },
    getOwnUser: async ({ principal }) => {
      const { user, totp } = await getOwnUser(deps, resolveUserId(undefined, principal));
      return tagged(user, { ...fullView(user), mfa: { totp } });
    },
    replaceOwnProfile: update,
    changeOwnProfile: update,
    changeOwnPassword: password,
    getUser: async ({ params }) => {
      const user = await getUser(deps, params.id);
      return { status: 200, body: publicView(user), headers: { ETag: publicTag(user) } };
    },
    replaceProfile: update,
    changeProfile: update,
    changePassword: password,
    listSessions: async ({ principal, params, query, url }) => {
      const { rows, count } = await listSessions(deps, principal, resolveUserId(params.id, principal), query);
      return listingResult(rows.map(sessionView), { count }, { ...query, sort: [['createdAt', -1]] }, url);
    },
    endSessions: async ({ principal, params }) => {
      await endAllSessions(deps, principal, resolveUserId(params.id, principal));
      return { status: 204 };
    },
    deleteUser: remove,
    deleteOwnUser: remove,
  });
}
