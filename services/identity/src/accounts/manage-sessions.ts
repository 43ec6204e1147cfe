import type { Principal } from '@restgate/shared';
import { identityErrors } from '../errors';
import { assertSelfOrAdmin } from './access';
import type { AccountsDeps } from './accounts-deps';
import { getUser } from './user';
import { endSessions, endSessionsOfUser, type SessionDeps, type SessionRecord } from './sessions';

/** `DELETE /auth/session`: the session of the calling access token ends. */
export async function logout(deps: Pick<SessionDeps, 'sessions' | 'revocations'>, caller: Principal): Promise<void> {
  if (caller.kind !== 'user') throw identityErrors.needsUser();
  // Every access token the gateway admits carries its session; a principal without one is not from a session.
  if (!caller.sid) throw identityErrors.noSession();
  await endSessions(deps, [caller.sid]);
}

/** `GET /users/:id/sessions`: the user's live sessions; the user themself or an admin. */
export async function listSessions(
  deps: Pick<SessionDeps, 'sessions' | 'users'>,
  caller: Principal,
  userId: string,
  page: { page: number; limit: number },
): Promise<{ rows: SessionRecord[]; count: number }> {
  assertSelfOrAdmin(caller, userId, identityErrors.notYourSessions);
  const user = await getUser(deps, userId);
  return deps.sessions.listOfUser(userId, page, new Date(), user.credentialsEpoch);
}

/** `DELETE /users/:id/sessions`: every session of the user ends, and so does every sign-in waiting for a second factor; the user themself or an admin. */
export async function endAllSessions(
  deps: Pick<SessionDeps, 'sessions' | 'revocations' | 'users'> & Pick<AccountsDeps, 'secondFactor'>,
  caller: Principal,
  userId: string,
): Promise<void> {
  assertSelfOrAdmin(caller, userId, identityErrors.notYourSessions);
  await getUser(deps, userId);
  await endSessionsOfUser(deps, userId);
  await deps.secondFactor.endPending(userId);
}
