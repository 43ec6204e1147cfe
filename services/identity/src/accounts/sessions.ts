import { createHash, randomBytes } from 'node:crypto';
import { createSecretBox, type SecretBox } from '@restgate/shared';
import { actorOfUser, userSubject, type AuditTrail } from '../audit/audit-trail';
import { identityErrors } from '../errors';
import type { TokenIssuer } from './token-issuer.port';
import type { UserRecord } from './user';

/** A session as the use cases and the listing see it. */
export interface SessionRecord {
  id: string;
  userId: string;
  createdAt: Date;
  lastUsedAt: Date;
  userAgent: string | null;
  /** When its current refresh token stops working (each refresh moves it). */
  expiresAt: Date;
  /** The user's credentials epoch when the session was opened (or kept by a password change). */
  credentialsEpoch: number;
  /** How the user proved who they are at sign-in (RFC 8176), carried by every access token of the session. */
  amr: string[];
}

/** A refresh token's stored form: its hash, never the token. */
export interface RefreshTokenRecord {
  sessionId: string;
  userId: string;
  expiresAt: Date;
}

/**
 * Where sessions and their refresh tokens are kept (the use cases own this interface; session.repository.ts
 * implements it). Rotation must have exactly one winner per refresh token, on FerretDB too,
 * whose conditional updates are not atomic: `claimRefreshToken` is a unique-key insert.
 */
export interface SessionRepository {
  insert(session: Omit<SessionRecord, 'id'>, refresh: { tokenHash: string; expiresAt: Date }): Promise<SessionRecord>;
  findRefreshToken(tokenHash: string): Promise<RefreshTokenRecord | null>;
  /** Marks a refresh token used: true for exactly one caller however many race. */
  claimRefreshToken(tokenHash: string, token: RefreshTokenRecord): Promise<boolean>;
  /**
   * The winner of a claim has handed out the next token: `successor` is that token sealed under a
   * key only the used token opens, kept until `successorUntil` (the retry grace).
   */
  completeClaim(tokenHash: string, successor?: { sealed: string; until: Date }): Promise<void>;
  /** A used refresh token: when, whether its winner finished, and its sealed successor while the grace lasts. */
  findUse(tokenHash: string): Promise<RefreshTokenUse | null>;
  /** The live session (not expired); null when it ended. */
  findSession(sessionId: string, now: Date): Promise<SessionRecord | null>;
  /** Stores the session's next refresh token and moves its expiry and last use; null when the session is gone. */
  rotate(sessionId: string, refresh: { tokenHash: string; expiresAt: Date }, now: Date): Promise<SessionRecord | null>;
  /** Moves a session to a new credentials epoch: the one a password change keeps. */
  setCredentialsEpoch(sessionId: string, credentialsEpoch: number): Promise<void>;
  /** The user's live sessions (not expired, of `credentialsEpoch` or later), newest first, one page and the total. */
  listOfUser(
    userId: string,
    page: { page: number; limit: number },
    now: Date,
    credentialsEpoch?: number,
  ): Promise<{ rows: SessionRecord[]; count: number }>;
  /** Ids of every session of the user (expired ones too: their access tokens may still live). */
  idsOfUser(userId: string): Promise<string[]>;
  /** Deletes sessions and their refresh tokens. */
  delete(sessionIds: string[]): Promise<void>;
  /** Deletes every session expired by `now`, with its refresh tokens; how many sessions went. */
  deleteExpired(now: Date): Promise<number>;
}

/** Tells every gateway that sessions ended; rejects when that could not be recorded. */
export interface RevocationRecorder {
  sessionsEnded(sessionIds: string[]): Promise<void>;
  /**
   * Every token of the user whose session was opened with credentials older than `before` (ms),
   * except the session `except`: a new password (sessions may still be opening with the old
   * one). Without `before`, every token of the user: a deleted user (the same).
   */
  userEnded(userId: string, options?: { before?: number; except?: string }): Promise<void>;
}

/** A refresh token's use, as the retry grace reads it. */
export interface RefreshTokenUse {
  usedAt: Date;
  done: boolean;
  sealedSuccessor?: string;
  successorUntil?: Date;
}

export interface SessionSettings {
  /** Refresh token lifetime, in seconds. */
  refreshTtlSeconds: number;
  /** REFRESH_REUSE_GRACE_SECONDS: a used refresh token presented again within it is a retry (0: never). */
  reuseGraceSeconds?: number;
}

export interface SessionDeps {
  /** The user a refresh is for (identity-deps' UserRepository has it; named here to keep imports one way). */
  users: { findById(id: string): Promise<UserRecord | null> };
  tokens: TokenIssuer;
  sessions: SessionRepository;
  revocations: RevocationRecorder;
  sessionSettings: SessionSettings;
  /** Sessions opened, refreshed, reused after the grace: recorded for the audit log. */
  audit: AuditTrail;
}

export interface SignedIn {
  token: string;
  refreshToken: string;
  expiresIn: number;
  user: UserRecord;
}

/** 256 bits from the CSPRNG, base64url: what the client holds. Only its SHA-256 is stored. */
function newRefreshToken(): { token: string; tokenHash: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, tokenHash: hashRefreshToken(token) };
}

export function hashRefreshToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** A new access token of the session, with the session's refresh token and its user. */
function signedIn(deps: Pick<SessionDeps, 'tokens'>, user: UserRecord, session: SessionRecord, refreshToken: string): SignedIn {
  const access = deps.tokens.issue(user, session);
  return { token: access.token, refreshToken, expiresIn: access.expiresIn, user };
}

/** A client's User-Agent as a session (or a sign-in waiting for its second factor) keeps it: at most 256 characters. */
export function storedUserAgent(userAgent: string | undefined): string | null {
  return userAgent?.slice(0, 256) || null;
}

/** Opens a session for a user who just proved who they are: an access token and a refresh token. */
export async function openSession(
  deps: Pick<SessionDeps, 'tokens' | 'sessions' | 'sessionSettings' | 'audit'>,
  user: UserRecord,
  userAgent?: string,
  amr: string[] = ['pwd'],
): Promise<SignedIn> {
  const now = new Date();
  const refresh = newRefreshToken();
  const expiresAt = new Date(now.getTime() + deps.sessionSettings.refreshTtlSeconds * 1000);
  // The epoch of the password just checked: if a change stored a new one meanwhile, this session
  // is already older than it, and refused like every other session of the old password.
  const session = await deps.sessions.insert(
    {
      userId: user.id,
      createdAt: now,
      lastUsedAt: now,
      userAgent: storedUserAgent(userAgent),
      expiresAt,
      credentialsEpoch: user.credentialsEpoch,
      amr,
    },
    { tokenHash: refresh.tokenHash, expiresAt },
  );
  await deps.audit.record('auth.sign_in.succeeded', {
    outcome: 'success',
    actor: actorOfUser(user),
    subject: userSubject(user.id),
    details: { amr, sessionId: session.id },
  });
  return signedIn(deps, user, session, refresh.token);
}

/** How long a refresh waits for a concurrent one (the winner) to hand out the next token. */
const RACE_WAIT_MS = 5_000;
const RACE_POLL_MS = 25;
/** A claim left unfinished longer than this (a crashed process) is no race any more. */
const CLAIM_STALE_MS = 10_000;

/** The key that seals a successor is derived from the token it succeeds: the database holds only that token's hash. */
function successorBox(usedToken: string): SecretBox {
  return createSecretBox(usedToken, 'refresh successor');
}

/**
 * `POST /auth/refresh`: uses up the refresh token and hands out the next one with a new access
 * token. The same token presented again within the grace (REFRESH_REUSE_GRACE_SECONDS) after its
 * use is a retry (two tabs, a lost answer): it gets the same next refresh token and a new access
 * token, and a refresh racing the winner waits for it to get that answer too. After the grace, a
 * used token is a theft signal (the thief or the owner holds a copy): the whole session ends, and
 * both of them must sign in again. A session opened with a password older than the user's current
 * one ends too (a sign-in that raced a change or a reset).
 */
export async function refreshSession(deps: SessionDeps, refreshToken: string): Promise<SignedIn> {
  const tokenHash = hashRefreshToken(refreshToken);
  const stored = await deps.sessions.findRefreshToken(tokenHash);
  const now = new Date();
  if (!stored || stored.expiresAt <= now) throw identityErrors.refreshTokenInvalid();
  if (!(await deps.sessions.claimRefreshToken(tokenHash, stored))) return retryRefresh(deps, refreshToken, stored);
  const user = await deps.users.findById(stored.userId);
  if (!user) throw identityErrors.refreshTokenInvalid();
  const next = newRefreshToken();
  const session = await deps.sessions.rotate(
    stored.sessionId,
    { tokenHash: next.tokenHash, expiresAt: new Date(now.getTime() + deps.sessionSettings.refreshTtlSeconds * 1000) },
    now,
  );
  if (!session) throw identityErrors.refreshTokenInvalid();
  if (session.credentialsEpoch < user.credentialsEpoch) {
    await endSessions(deps, [session.id]);
    throw identityErrors.refreshTokenInvalid();
  }
  const graceMs = (deps.sessionSettings.reuseGraceSeconds ?? 0) * 1000;
  await deps.sessions.completeClaim(
    tokenHash,
    graceMs > 0 ? { sealed: successorBox(refreshToken).seal(next.token, tokenHash), until: new Date(Date.now() + graceMs) } : undefined,
  );
  await deps.audit.record('auth.refresh.succeeded', {
    outcome: 'success',
    actor: actorOfUser(user),
    subject: userSubject(user.id),
    details: { sessionId: session.id },
  });
  return signedIn(deps, user, session, next.token);
}

/** A used refresh token again: within the grace, the first answer's refresh token and a new access token; after it, theft. */
async function retryRefresh(deps: SessionDeps, refreshToken: string, stored: RefreshTokenRecord): Promise<SignedIn> {
  const tokenHash = hashRefreshToken(refreshToken);
  const waitUntil = Date.now() + RACE_WAIT_MS;
  let use = await deps.sessions.findUse(tokenHash);
  // A concurrent refresh still rotating: wait for its answer rather than refuse a legitimate tab.
  while (use && !use.done && Date.now() - use.usedAt.getTime() < CLAIM_STALE_MS && Date.now() < waitUntil) {
    await new Promise((resolve) => setTimeout(resolve, RACE_POLL_MS));
    use = await deps.sessions.findUse(tokenHash);
  }
  const now = new Date();
  const successor =
    use?.done && use.sealedSuccessor && use.successorUntil && use.successorUntil > now
      ? successorBox(refreshToken).open(use.sealedSuccessor, tokenHash)
      : null;
  if (successor !== null) {
    const [session, user] = await Promise.all([deps.sessions.findSession(stored.sessionId, now), deps.users.findById(stored.userId)]);
    if (!session || !user || session.credentialsEpoch < user.credentialsEpoch) throw identityErrors.refreshTokenInvalid();
    return signedIn(deps, user, session, successor);
  }
  // Still unfinished (no grace to answer from, or a winner that never finished in time): refused, no theft signal.
  if (use && !use.done && Date.now() - use.usedAt.getTime() < CLAIM_STALE_MS) throw identityErrors.refreshTokenInvalid();
  await endSessions(deps, [stored.sessionId]);
  // Whoever sent it may be the thief: the actor is nobody known, the subject the session's user.
  await deps.audit.record('auth.refresh.reuse_detected', {
    outcome: 'failure',
    actor: { kind: 'anonymous', id: null },
    subject: userSubject(stored.userId),
    details: { sessionId: stored.sessionId, sessionEnded: true },
  });
  throw identityErrors.refreshTokenInvalid();
}

/**
 * Ends sessions: recorded for the gateways first, so that a Redis that does not take it fails
 * the request (503) before anything changed, rather than leave access tokens working after a
 * "logged out".
 */
export async function endSessions(deps: Pick<SessionDeps, 'sessions' | 'revocations'>, sessionIds: string[]): Promise<void> {
  if (sessionIds.length === 0) return;
  await deps.revocations.sessionsEnded(sessionIds);
  await deps.sessions.delete(sessionIds);
}

/**
 * Stores a new password so that no session of the old one survives, not even one a sign-in is
 * opening right now with the old password: `write` stores the hash with the new credentials
 * epoch (one update), and every session of an older epoch is refused from then on (at refresh
 * here, at the gateway by a user-wide revocation). That revocation is recorded first: when Redis
 * does not take it, nothing has changed (503). `keep` (the session that changed the password) is
 * moved to the new epoch and spared. The sessions that exist are ended as well, so they leave the
 * listing and their refresh tokens go.
 */
export async function replaceCredentials<T>(
  deps: Pick<SessionDeps, 'sessions' | 'revocations'>,
  user: Pick<UserRecord, 'id' | 'credentialsEpoch'>,
  write: (credentialsEpoch: number) => Promise<T>,
  keep?: string,
): Promise<T> {
  // Always later than the one it replaces, even from a replica whose clock is behind.
  const credentialsEpoch = Math.max(Date.now(), user.credentialsEpoch + 1);
  await deps.revocations.userEnded(user.id, { before: credentialsEpoch, except: keep });
  if (keep) await deps.sessions.setCredentialsEpoch(keep, credentialsEpoch);
  const written = await write(credentialsEpoch);
  await endSessionsOfUser(deps, user.id, keep);
  return written;
}

/** Every session of the user, except `keep` (the one that changed the password): how many ended. */
export async function endSessionsOfUser(
  deps: Pick<SessionDeps, 'sessions' | 'revocations'>,
  userId: string,
  keep?: string,
): Promise<number> {
  const ids = (await deps.sessions.idsOfUser(userId)).filter((id) => id !== keep);
  await endSessions(deps, ids);
  return ids.length;
}
