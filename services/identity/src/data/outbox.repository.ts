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

/**
 * The outbox: the `mail` entries of the password-reset documents. Pending entries are claimed
 * with a lease (their `nextAttemptAt` moves past the lease), so a relay that dies holding one
 * only delays it; two relays that both publish one (FerretDB v1, whose findOneAndUpdate is not
 * atomic) make a duplicate the mailer drops by message id.
 */
export class OutboxRepository {
  private readonly rows: Collection<PasswordResetDocument>;

  /** `collection`: another collection whose documents carry the same `mail` entry (e-mail verifications). */
  constructor(db: Db, collection = PASSWORD_RESETS_COLLECTION) {
    this.rows = db.collection<PasswordResetDocument>(collection);
  }

  async ensureIndexes(): Promise<void> {
    await this.rows.createIndex({ 'mail.status': 1, 'mail.nextAttemptAt': 1 }, { name: 'mail_pending' });
  }

  /** Pending and due, token not expired (an expired link is not worth sending). */
  private due(now: Date): Filter<PasswordResetDocument> {
    return { 'mail.status': 'pending', 'mail.nextAttemptAt': { $lte: now }, expiresAt: { $gt: now } };
  }

  /** Claims the oldest due entry for `leaseMs`, or null when none is due. */
  async claimNext(owner: string, leaseMs: number, now = new Date()): Promise<OutboxItem | null> {
    // No projection: FerretDB's findAndModify refuses one.
    const doc = await this.rows.findOneAndUpdate(
      this.due(now),
      { $set: { 'mail.nextAttemptAt': new Date(now.getTime() + leaseMs), 'mail.claimedBy': owner }, $inc: { 'mail.attempts': 1 } },
      { sort: { 'mail.nextAttemptAt': 1 }, returnDocument: 'after' },
    );
    if (!doc?.mail) return null;
    return { id: doc._id.toHexString(), envelope: doc.mail.envelope, attempts: doc.mail.attempts };
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
