import { parseObjectId, writeUnique } from '@restgate/shared/data';
import { ObjectId, type Collection, type Db } from 'mongodb';
import type { LinkRecord, LinkTokenRepository } from './emailed-link';
import type { MailOutboxEntry } from '../outbox/outbox.repository';
import type { LinkMail } from './link-mail';

/** Each purpose's links in a collection of its own. */
export const PASSWORD_RESETS_COLLECTION = 'password_resets';
export const EMAIL_VERIFICATIONS_COLLECTION = 'email_verifications';

/** The mail request a link carries: the transactional outbox entry, written with the token. */
export type LinkMailEntry = MailOutboxEntry<LinkMail>;

/**
 * One link token and, in the same document, the mail that carries it: a single insert creates
 * both, so neither exists without the other (FerretDB has no multi-document transactions, and
 * MongoDB has them only on a replica set). `userId`, `address` and `mail` are null (or absent) on
 * the stand-in written for an address that gets no mail.
 */
export interface LinkTokenDocument {
  _id: ObjectId;
  userId: ObjectId | null;
  /**
   * The user again, on a user's link only (absent on stand-ins), under a unique index: a user has
   * one live link of a purpose at most, whatever number of requests race.
   */
  liveFor?: ObjectId;
  /** The address the link was sent to. */
  address?: string | null;
  /** SHA-256 of the token (hex): the token itself is never stored. */
  tokenHash: string;
  expiresAt: Date;
  createdAt: Date;
  mail: LinkMailEntry | null;
}

/** FerretDB v1 answers a TTL index with NotImplemented (238). */
function isNotImplemented(err: unknown): boolean {
  const e = err as { code?: unknown; codeName?: unknown } | null;
  return typeof e === 'object' && e !== null && (e.code === 238 || e.codeName === 'NotImplemented');
}

/** One purpose's link tokens in MongoDB. Used tokens are deleted, not flagged (see `consume`). */
export class MongoLinkTokenRepository implements LinkTokenRepository {
  private readonly rows: Collection<LinkTokenDocument>;

  /** `ttlIndex`: ask the server to expire rows itself (an index its collection has always had, or never). */
  constructor(
    db: Db,
    readonly collection: string,
    readonly options: { ttlIndex: boolean },
  ) {
    this.rows = db.collection<LinkTokenDocument>(collection);
  }

  /**
   * Creates the indexes. `ttl: false` when there is no TTL index (FerretDB v1 refuses one): expiry
   * is checked in code anyway, and the periodic `deleteExpired` removes the rows.
   */
  async ensureIndexes(): Promise<{ ttl: boolean }> {
    await this.rows.createIndex({ tokenHash: 1 }, { unique: true, name: 'token_hash_unique' });
    await this.rows.createIndex({ userId: 1 }, { name: 'user_id' });
    // Sparse: stand-ins have no `liveFor`.
    await this.rows.createIndex({ liveFor: 1 }, { unique: true, sparse: true, name: 'live_for_unique' });
    if (this.options.ttlIndex) {
      try {
        await this.rows.createIndex({ expiresAt: 1 }, { expireAfterSeconds: 0, name: 'expires_at_ttl' });
        return { ttl: true };
      } catch (err) {
        if (!isNotImplemented(err)) throw err;
      }
    }
    // Still worth an index: the periodic clean-up filters on expiresAt.
    await this.rows.createIndex({ expiresAt: 1 }, { name: 'expires_at' });
    return { ttl: false };
  }

  /**
   * Ends the user's earlier links and stores this one, with its mail, as the only live one. Two
   * steps, but the unique index on `liveFor` decides between racing requests: a delete-then-insert
   * race can't leave two links (FerretDB runs a conditional update as read-then-write, so no
   * compare-and-set would); the request whose insert meets the key loses, and the link of the
   * request that won stands, with its mail. False for the loser: nothing of its own was stored.
   */
  async replaceWithMail(row: {
    userId: string;
    address: string;
    tokenHash: string;
    expiresAt: Date;
    envelope: LinkMail;
  }): Promise<boolean> {
    const userId = parseObjectId(row.userId);
    if (!userId) throw new Error('replaceWithMail: malformed user id');
    const now = new Date();
    const mail: LinkMailEntry = { envelope: row.envelope, status: 'pending', attempts: 0, nextAttemptAt: now, sentAt: null };
    await this.rows.deleteMany({ userId });
    return writeUnique(() =>
      this.rows.insertOne({
        _id: new ObjectId(),
        userId,
        liveFor: userId,
        address: row.address,
        tokenHash: row.tokenHash,
        expiresAt: row.expiresAt,
        createdAt: now,
        mail,
      }),
    );
  }

  async insertStandIn(row: { tokenHash: string; expiresAt: Date }): Promise<void> {
    await this.rows.insertOne({
      _id: new ObjectId(),
      userId: null,
      address: null,
      tokenHash: row.tokenHash,
      expiresAt: row.expiresAt,
      createdAt: new Date(),
      mail: null,
    });
  }

  async findActive(tokenHash: string, now: Date): Promise<LinkRecord | null> {
    const doc = await this.rows.findOne({ tokenHash, userId: { $ne: null }, expiresAt: { $gt: now } });
    if (!doc?.userId) return null;
    return { id: doc._id.toHexString(), userId: doc.userId.toHexString(), address: doc.address ?? null, expiresAt: doc.expiresAt };
  }

  /**
   * Uses up a link: true for exactly one caller however many race. A delete, because FerretDB v1
   * runs a conditional update (findOneAndUpdate, updateOne) as read-then-write, so several racers
   * all "win" a `{ usedAt: null } → usedAt` update there; its delete reports one deletion only.
   */
  async consume(id: string, now: Date): Promise<boolean> {
    const _id = parseObjectId(id);
    if (!_id) return false;
    const { deletedCount } = await this.rows.deleteOne({ _id, expiresAt: { $gt: now } });
    return deletedCount === 1;
  }

  async deleteAllOfUser(userId: string): Promise<number> {
    const _id = parseObjectId(userId);
    if (!_id) return 0;
    const { deletedCount } = await this.rows.deleteMany({ userId: _id });
    return deletedCount;
  }

  /** Removes expired rows: what the TTL index does on MongoDB, and the only clean-up on FerretDB. */
  async deleteExpired(now: Date): Promise<number> {
    const { deletedCount } = await this.rows.deleteMany({ expiresAt: { $lte: now } });
    return deletedCount;
  }
}
