import type { Principal } from '@restgate/shared';
import { identityErrors } from '../errors';
import { endSessions, endSessionsOfUser, type SessionDeps } from './sessions';

export interface SessionView {
  id: string;
  createdAt: Date;
  lastUsedAt: Date;
  userAgent: string | null;
}

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
): Promise<{ rows: SessionView[]; count: number }> {
  assertSelfOrAdmin(caller, userId);
  const user = await deps.users.findById(userId);
  if (!user) throw identityErrors.userNotFound();
  const { rows, count } = await deps.sessions.listOfUser(userId, page, new Date(), user.credentialsEpoch);
  return { rows: rows.map(({ id, createdAt, lastUsedAt, userAgent }) => ({ id, createdAt, lastUsedAt, userAgent })), count };
}

/** `DELETE /users/:id/sessions`: every session of the user ends; the user themself or an admin. */
export async function endAllSessions(
  deps: Pick<SessionDeps, 'sessions' | 'revocations' | 'users'>,
  caller: Principal,
  userId: string,
): Promise<void> {
  assertSelfOrAdmin(caller, userId);
  if (!(await deps.users.findById(userId))) throw identityErrors.userNotFound();
  await endSessionsOfUser(deps, userId);
}

function assertSelfOrAdmin(caller: Principal, userId: string): void {
  if (caller.kind !== 'user') throw identityErrors.needsUser();
  if (caller.id !== userId && caller.role !== 'admin') throw identityErrors.notYourSessions();
}
