import { parseObjectId, writeUnique } from '@restgate/shared/data';
import { ObjectId, type Collection, type Db } from 'mongodb';
import type { RefreshTokenRecord, RefreshTokenUse, SessionRecord, SessionRepository } from './sessions';

interface SessionDocument {
  _id: ObjectId;
  userId: ObjectId;
  createdAt: Date;
  lastUsedAt: Date;
  userAgent: string | null;
  expiresAt: Date;
  /** The user's credentials epoch the session was opened (or kept) with; absent on older sessions: 0. */
  credentialsEpoch?: number;
  /** How the user signed in (RFC 8176); absent on sessions from before the field: a password. */
  amr?: string[];
}

/** A refresh token: `_id` is the SHA-256 of the token (hex), never the token. */
interface RefreshTokenDocument {
  _id: string;
  sessionId: ObjectId;
  userId: ObjectId;
  expiresAt: Date;
}

/** A used refresh token: its insert is the claim (one winner per `_id`, FerretDB included). */
interface RefreshTokenUseDocument {
  _id: string;
  sessionId: ObjectId;
  usedAt: Date;
  expiresAt: Date;
  /** The winner has stored the next token: set by a plain update, read by the losers only. */
  done: boolean;
  /** The next token, sealed under a key derived from this (used) token, for retries within the grace; then removed. */
  successor?: string;
  successorUntil?: Date;
}

function toRecord(doc: SessionDocument): SessionRecord {
  return {
    id: doc._id.toHexString(),
    userId: doc.userId.toHexString(),
    createdAt: doc.createdAt,
    lastUsedAt: doc.lastUsedAt,
    userAgent: doc.userAgent,
    expiresAt: doc.expiresAt,
    credentialsEpoch: doc.credentialsEpoch ?? 0,
    amr: doc.amr ?? ['pwd'],
  };
}

function objectIds(ids: string[]): ObjectId[] {
  return ids.map(parseObjectId).filter((id): id is ObjectId => id !== null);
}

/**
 * Sessions in MongoDB: `sessions`, `refresh_tokens`, and `refresh_token_uses` (the used ones,
 * kept until they would have expired, so that a reuse is recognised as one).
 *
 * Why a use is an insert and not `updateOne({ _id, used: false }, { $set: { used: true } })`: on
 * FerretDB v1 several concurrent conditional updates of one document all report a modification
 * (test/sessions.race.test.ts shows it); an insert on a unique key has exactly one winner.
 * Expiry is checked in code (FerretDB v1 has no TTL indexes); expired rows are removed as the
 * user's sessions are listed, and for everyone by identity's periodic clean-up (deleteExpired),
 * never as a session opens, which would add a query to every sign-in.
 */
export class MongoSessionRepository implements SessionRepository {
  private readonly sessions: Collection<SessionDocument>;
  private readonly refreshTokens: Collection<RefreshTokenDocument>;
  private readonly uses: Collection<RefreshTokenUseDocument>;

  constructor(db: Db) {
    this.sessions = db.collection<SessionDocument>('sessions');
    this.refreshTokens = db.collection<RefreshTokenDocument>('refresh_tokens');
    this.uses = db.collection<RefreshTokenUseDocument>('refresh_token_uses');
  }

  async ensureIndexes(): Promise<void> {
    await this.sessions.createIndex({ userId: 1, createdAt: -1 }, { name: 'user_created' });
    await this.refreshTokens.createIndex({ sessionId: 1 }, { name: 'session_id' });
    await this.uses.createIndex({ sessionId: 1 }, { name: 'session_id' });
  }

  async insert(session: Omit<SessionRecord, 'id'>, refresh: { tokenHash: string; expiresAt: Date }): Promise<SessionRecord> {
    const userId = parseObjectId(session.userId);
    if (!userId) throw new Error('sessions.insert: malformed user id');
    const doc: SessionDocument = { _id: new ObjectId(), ...session, userId };
    await this.sessions.insertOne(doc);
    await this.refreshTokens.insertOne({ _id: refresh.tokenHash, sessionId: doc._id, userId, expiresAt: refresh.expiresAt });
    return toRecord(doc);
  }

  async findRefreshToken(tokenHash: string): Promise<RefreshTokenRecord | null> {
    const doc = await this.refreshTokens.findOne({ _id: tokenHash });
    return doc ? { sessionId: doc.sessionId.toHexString(), userId: doc.userId.toHexString(), expiresAt: doc.expiresAt } : null;
  }

  async claimRefreshToken(tokenHash: string, token: RefreshTokenRecord): Promise<boolean> {
    const sessionId = parseObjectId(token.sessionId);
    if (!sessionId) return false;
    return writeUnique(() =>
      this.uses.insertOne({ _id: tokenHash, sessionId, usedAt: new Date(), expiresAt: token.expiresAt, done: false }),
    );
  }

  async completeClaim(tokenHash: string, successor?: { sealed: string; until: Date }): Promise<void> {
    const kept = successor ? { successor: successor.sealed, successorUntil: successor.until } : {};
    await this.uses.updateOne({ _id: tokenHash }, { $set: { done: true, ...kept } });
  }

  async findUse(tokenHash: string): Promise<RefreshTokenUse | null> {
    const use = await this.uses.findOne({ _id: tokenHash });
    if (!use) return null;
    const kept = use.successor && use.successorUntil ? { sealedSuccessor: use.successor, successorUntil: use.successorUntil } : {};
    return { usedAt: use.usedAt, done: use.done, ...kept };
  }

  async findSession(sessionId: string, now: Date): Promise<SessionRecord | null> {
    const _id = parseObjectId(sessionId);
    const doc = _id && (await this.sessions.findOne({ _id, expiresAt: { $gt: now } }));
    return doc ? toRecord(doc) : null;
  }

  async rotate(sessionId: string, refresh: { tokenHash: string; expiresAt: Date }, now: Date): Promise<SessionRecord | null> {
    const _id = parseObjectId(sessionId);
    if (!_id) return null;
    const session = await this.sessions.findOneAndUpdate(
      { _id, expiresAt: { $gt: now } },
      { $set: { lastUsedAt: now, expiresAt: refresh.expiresAt } },
      { returnDocument: 'after' },
    );
    if (!session) return null;
    await this.refreshTokens.insertOne({ _id: refresh.tokenHash, sessionId: _id, userId: session.userId, expiresAt: refresh.expiresAt });
    // A session that ended meanwhile (logout racing the refresh) takes the new token with it.
    if (!(await this.sessions.findOne({ _id }, { projection: { _id: 1 } }))) {
      await this.refreshTokens.deleteMany({ sessionId: _id });
      return null;
    }
    return toRecord(session);
  }

  async setCredentialsEpoch(sessionId: string, credentialsEpoch: number): Promise<void> {
    const _id = parseObjectId(sessionId);
    if (_id) await this.sessions.updateOne({ _id }, { $set: { credentialsEpoch } });
  }

  async listOfUser(
    userId: string,
    page: { page: number; limit: number },
    now: Date,
    credentialsEpoch = 0,
  ): Promise<{ rows: SessionRecord[]; count: number }> {
    const id = parseObjectId(userId);
    if (!id) return { rows: [], count: 0 };
    await this.deleteExpiredOf(id, now);
    // Sessions of an older password are dead (refused at refresh and at the gateway), whether or
    // not the change's clean-up saw them; sessions stored before the field existed are older than any change.
    const filter = {
      userId: id,
      expiresAt: { $gt: now },
      ...(credentialsEpoch > 0 ? { credentialsEpoch: { $gte: credentialsEpoch } } : {}),
    };
    const [docs, count] = await Promise.all([
      this.sessions
        .find(filter)
        .sort({ createdAt: -1, _id: -1 })
        .skip((page.page - 1) * page.limit)
        .limit(page.limit)
        .toArray(),
      this.sessions.countDocuments(filter),
    ]);
    return { rows: docs.map(toRecord), count };
  }

  async idsOfUser(userId: string): Promise<string[]> {
    const id = parseObjectId(userId);
    if (!id) return [];
    const docs = await this.sessions.find({ userId: id }, { projection: { _id: 1 } }).toArray();
    return docs.map((doc) => doc._id.toHexString());
  }

  async delete(sessionIds: string[]): Promise<void> {
    const ids = objectIds(sessionIds);
    if (ids.length === 0) return;
    await this.sessions.deleteMany({ _id: { $in: ids } });
    await this.refreshTokens.deleteMany({ sessionId: { $in: ids } });
    // The used tokens stay until they expire: presenting one later is still recognised and refused.
  }

  /** Expired sessions of one user, with their tokens (no TTL indexes on FerretDB v1). */
  async deleteExpired(now: Date): Promise<number> {
    // A successor is kept only for the retry grace (and opens only with the used token anyway).
    await this.uses.updateMany({ successorUntil: { $lte: now } }, { $unset: { successor: '', successorUntil: '' } });
    return this.deleteWhere({ expiresAt: { $lte: now } });
  }

  private async deleteExpiredOf(userId: ObjectId, now: Date): Promise<void> {
    await this.deleteWhere({ userId, expiresAt: { $lte: now } });
  }

  private async deleteWhere(filter: { userId?: ObjectId; expiresAt: { $lte: Date } }): Promise<number> {
    const expired = await this.sessions.find(filter, { projection: { _id: 1 } }).toArray();
    if (expired.length === 0) return 0;
    const ids = expired.map((doc) => doc._id);
    await this.sessions.deleteMany({ _id: { $in: ids } });
    await this.refreshTokens.deleteMany({ sessionId: { $in: ids } });
    await this.uses.deleteMany({ sessionId: { $in: ids } });
    return ids.length;
  }
}
