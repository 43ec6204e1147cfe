import { parseObjectId } from '@restgate/shared/data';
import { ObjectId, type Collection, type Db } from 'mongodb';
import type { PasswordResetRecord, PasswordResetRepository } from '../domain/password-reset';
import type { PasswordResetMail } from '../domain/password-reset-mail';
import { ensureLiveLinkIndex, replaceLiveLink, type LiveLinkFields } from './live-link';

export const PASSWORD_RESETS_COLLECTION = 'password_resets';

/** The mail request a reset carries: the transactional outbox entry, written with the token. */
export interface MailOutboxEntry {
  envelope: PasswordResetMail;
  status: 'pending' | 'sent';
  /** Publish attempts so far (a claim counts as one). */
  attempts: number;
  /** Not to be tried before this: the back-off after a failure, or the lease of a relay that claimed it. */
  nextAttemptAt: Date;
  /** The relay instance that claimed it last. */
  claimedBy?: string;
  lastError?: string;
  sentAt: Date | null;
}

/**
 * One reset token and, in the same document, the mail that carries it: a single insert creates
 * both, so neither exists without the other (FerretDB has no multi-document transactions, and
 * MongoDB has them only on a replica set). `userId` and `mail` are null for the stand-in written
 * for an unknown e-mail (see request-password-reset.ts).
 */
export interface PasswordResetDocument extends LiveLinkFields {
  _id: ObjectId;
  userId: ObjectId | null;
  /** SHA-256 of the token (hex): the token itself is never stored. */
  tokenHash: string;
  expiresAt: Date;
  createdAt: Date;
  mail: MailOutboxEntry | null;
}

/** FerretDB v1 answers a TTL index with NotImplemented (238). */
function isNotImplemented(err: unknown): boolean {
  const e = err as { code?: unknown; codeName?: unknown } | null;
  return typeof e === 'object' && e !== null && (e.code === 238 || e.codeName === 'NotImplemented');
}

/** Reset tokens in MongoDB. Used tokens are deleted, not flagged (see `consume`). */
export class MongoPasswordResetRepository implements PasswordResetRepository {
  private readonly resets: Collection<PasswordResetDocument>;

  constructor(db: Db) {
    this.resets = db.collection<PasswordResetDocument>(PASSWORD_RESETS_COLLECTION);
  }

  /**
   * Creates the indexes. `ttl: false` when the server refuses TTL indexes (FerretDB v1): expiry
   * is checked in code anyway, and the outbox relay's periodic `deleteExpired` removes the rows.
   */
  async ensureIndexes(): Promise<{ ttl: boolean }> {
    await this.resets.createIndex({ tokenHash: 1 }, { unique: true, name: 'token_hash_unique' });
    await this.resets.createIndex({ userId: 1 }, { name: 'user_id' });
    await ensureLiveLinkIndex(this.resets);
    try {
      await this.resets.createIndex({ expiresAt: 1 }, { expireAfterSeconds: 0, name: 'expires_at_ttl' });
      return { ttl: true };
    } catch (err) {
      if (!isNotImplemented(err)) throw err;
      // Still worth an index: the periodic clean-up filters on expiresAt.
      await this.resets.createIndex({ expiresAt: 1 }, { name: 'expires_at' });
      return { ttl: false };
    }
  }

  /** The user's only live reset from now on, with its mail (see `replaceLiveLink`); false when a racing request's stands. */
  async replaceWithMail(reset: { userId: string; tokenHash: string; expiresAt: Date; envelope: PasswordResetMail }): Promise<boolean> {
    const userId = parseObjectId(reset.userId);
    if (!userId) throw new Error('replaceWithMail: malformed user id');
    const now = new Date();
    return replaceLiveLink(this.resets, {
      _id: new ObjectId(),
      userId,
      tokenHash: reset.tokenHash,
      expiresAt: reset.expiresAt,
      createdAt: now,
      mail: { envelope: reset.envelope, status: 'pending', attempts: 0, nextAttemptAt: now, sentAt: null },
    });
  }

  /** The same write for an unknown e-mail: a row that no token opens and that sends nothing. */
  async insertStandIn(reset: { tokenHash: string; expiresAt: Date }): Promise<void> {
    await this.resets.insertOne({
      _id: new ObjectId(),
      userId: null,
      tokenHash: reset.tokenHash,
      expiresAt: reset.expiresAt,
      createdAt: new Date(),
      mail: null,
    });
  }

  /** The reset with this token hash, if it belongs to a user and has not expired. */
  async findActive(tokenHash: string, now: Date): Promise<PasswordResetRecord | null> {
    const doc = await this.resets.findOne({ tokenHash, userId: { $ne: null }, expiresAt: { $gt: now } });
    if (!doc?.userId) return null;
    return { id: doc._id.toHexString(), userId: doc.userId.toHexString(), expiresAt: doc.expiresAt, createdAt: doc.createdAt };
  }

  /**
   * Uses up a reset: true for exactly one caller however many race. A delete, because FerretDB v1
   * runs a conditional update (findOneAndUpdate, updateOne) as read-then-write, so several racers
   * all "win" a `{ usedAt: null } → usedAt` update there; its delete reports one deletion only.
   */
  async consume(id: string, now: Date): Promise<boolean> {
    const _id = parseObjectId(id);
    if (!_id) return false;
    const { deletedCount } = await this.resets.deleteOne({ _id, expiresAt: { $gt: now } });
    return deletedCount === 1;
  }

  /** Ends every other reset of the user (their pending mails go with them). */
  async deleteAllOfUser(userId: string): Promise<number> {
    const _id = parseObjectId(userId);
    if (!_id) return 0;
    const { deletedCount } = await this.resets.deleteMany({ userId: _id });
    return deletedCount;
  }

  /** Removes expired rows: what the TTL index does on MongoDB, and the only clean-up on FerretDB. */
  async deleteExpired(now: Date): Promise<number> {
    const { deletedCount } = await this.resets.deleteMany({ expiresAt: { $lte: now } });
    return deletedCount;
  }
}
