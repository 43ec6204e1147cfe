import { isDuplicateKeyError } from '@restgate/shared/data';
import type { MessageEnvelope } from '@restgate/shared/amqp';
import { ObjectId, type Collection, type Db, type Filter } from 'mongodb';
import { PASSWORD_RESETS_COLLECTION, type PasswordResetDocument } from './password-reset.repository';

/** A mail request a relay has claimed and must now publish. */
export interface OutboxItem {
  id: string;
  envelope: MessageEnvelope;
  /** Attempts including this one. */
  attempts: number;
}

/** One claim of one attempt of an outbox entry: its `_id` makes it the only one. */
interface OutboxLeaseDocument {
  /** `<entry id>:<attempts before the claim>`. */
  _id: string;
  owner: string;
  /** The entry's own expiry: past it the lease is removed with the expired resets. */
  expiresAt: Date;
  createdAt: Date;
}

export const OUTBOX_LEASES_COLLECTION = 'outbox_leases';

/** Due entries a relay looks at per claim: a few, so that it loses no time to a relay ahead of it. */
const CANDIDATES = 5;

/**
 * The outbox: the `mail` entries of the password-reset documents. A relay claims an entry by
 * inserting the lease `<entry id>:<attempts>`: a unique-key insert has one winner on FerretDB as
 * on MongoDB, where a conditional update (findOneAndUpdate) is read-modify-write on FerretDB and
 * let two relays publish most entries twice. The winner alone then moves the entry's
 * `nextAttemptAt` past the lease and counts the attempt, so a relay that dies holding an entry
 * only delays it: once due again it has a new attempt number, hence a new lease to win.
 */
export class OutboxRepository {
  private readonly rows: Collection<PasswordResetDocument>;
  private readonly leases: Collection<OutboxLeaseDocument>;

  /**
   * `collection`: another collection whose documents carry the same `mail` entry (e-mail
   * verifications). Leases share one collection: entry ids are unique across both.
   */
  constructor(db: Db, collection = PASSWORD_RESETS_COLLECTION) {
    this.rows = db.collection<PasswordResetDocument>(collection);
    this.leases = db.collection<OutboxLeaseDocument>(OUTBOX_LEASES_COLLECTION);
  }

  async ensureIndexes(): Promise<void> {
    await this.rows.createIndex({ 'mail.status': 1, 'mail.nextAttemptAt': 1 }, { name: 'mail_pending' });
    await this.leases.createIndex({ expiresAt: 1 }, { name: 'lease_expiry' });
  }

  /** Pending and due, token not expired (an expired link is not worth sending). */
  private due(now: Date): Filter<PasswordResetDocument> {
    return { 'mail.status': 'pending', 'mail.nextAttemptAt': { $lte: now }, expiresAt: { $gt: now } };
  }

  /** Claims the oldest due entry for `leaseMs`, or null when none is due (or every due one is another relay's). */
  async claimNext(owner: string, leaseMs: number, now = new Date()): Promise<OutboxItem | null> {
    const candidates = await this.rows.find(this.due(now)).sort({ 'mail.nextAttemptAt': 1 }).limit(CANDIDATES).toArray();
    for (const doc of candidates) {
      if (!doc.mail) continue;
      const attempts = doc.mail.attempts;
      try {
        await this.leases.insertOne({ _id: `${doc._id.toHexString()}:${attempts}`, owner, expiresAt: doc.expiresAt, createdAt: now });
      } catch (err) {
        if (isDuplicateKeyError(err)) continue; // another relay has this attempt
        throw err;
      }
      // This attempt is ours alone; the filter drops it when what we read is already stale.
      const claimed = await this.rows.updateOne(
        { _id: doc._id, 'mail.status': 'pending', 'mail.attempts': attempts },
        { $set: { 'mail.nextAttemptAt': new Date(now.getTime() + leaseMs), 'mail.claimedBy': owner }, $inc: { 'mail.attempts': 1 } },
      );
      if (claimed.modifiedCount === 1) return { id: doc._id.toHexString(), envelope: doc.mail.envelope, attempts: attempts + 1 };
    }
    return null;
  }

  /** Leases of entries whose reset has expired: nothing can claim those again. */
  async deleteExpiredLeases(now = new Date()): Promise<number> {
    return (await this.leases.deleteMany({ expiresAt: { $lte: now } })).deletedCount;
  }

  /** After the broker's confirm: the entry is done. */
  async markSent(id: string, now = new Date()): Promise<void> {
    await this.rows.updateOne(
      { _id: new ObjectId(id), 'mail.status': 'pending' },
      { $set: { 'mail.status': 'sent', 'mail.sentAt': now }, $unset: { 'mail.lastError': '' } },
    );
  }

  /** Gives a claimed entry back, to be tried again at `retryAt`. */
  async release(id: string, owner: string, retryAt: Date, error: string): Promise<void> {
    await this.rows.updateOne(
      { _id: new ObjectId(id), 'mail.status': 'pending', 'mail.claimedBy': owner },
      { $set: { 'mail.nextAttemptAt': retryAt, 'mail.lastError': error.slice(0, 500) } },
    );
  }

  /** Mail requests not published yet (unexpired): the backlog. */
  async pendingCount(now = new Date()): Promise<number> {
    return this.rows.countDocuments({ 'mail.status': 'pending', expiresAt: { $gt: now } });
  }
}
