import type { Principal } from '@restgate/shared';
import { identityErrors } from '../errors';
import { assertSelfOrAdmin } from './access';
import { userSubject } from '../audit/audit-trail';
import type { AccountsDeps } from './accounts-deps';
import { getUser } from './user';
import { endSessions, endSessionsOfUser, type SessionDeps, type SessionRecord } from './sessions';

/** `DELETE /auth/session`: the session of the calling access token ends. */
export async function logout(deps: Pick<SessionDeps, 'sessions' | 'revocations' | 'audit'>, caller: Principal): Promise<void> {
  if (caller.kind !== 'user') throw identityErrors.needsUser();
  // Every access token the gateway admits carries its session; a principal without one is not from a session.
  if (!caller.sid) throw identityErrors.noSession();
  await endSessions(deps, [caller.sid]);
  await deps.audit.record('auth.logout', { outcome: 'success', subject: userSubject(caller.id), details: { sessionId: caller.sid } });
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
  deps: Pick<SessionDeps, 'sessions' | 'revocations' | 'users' | 'audit'> & Pick<AccountsDeps, 'secondFactor'>,
  caller: Principal,
  userId: string,
): Promise<void> {
  assertSelfOrAdmin(caller, userId, identityErrors.notYourSessions);
  await getUser(deps, userId);
  const ended = await endSessionsOfUser(deps, userId);
  await deps.secondFactor.endPending(userId);
  // The actor (the request's principal) says by whom: the user, or an admin.
  await deps.audit.record('auth.session.revoked', {
    outcome: 'success',
    subject: userSubject(userId),
    details: { scope: 'all', sessions: ended },
  });
}
