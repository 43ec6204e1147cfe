import { parseObjectId } from '@restgate/shared/data';
import { ObjectId, type Collection, type Db } from 'mongodb';
import type { EmailVerificationRecord, EmailVerificationRepository } from '../domain/email-verification';
import type { EmailVerificationMail } from '../domain/email-verification-mail';
import { ensureLiveLinkIndex, replaceLiveLink, type LiveLinkFields } from './live-link';
import type { MailOutboxEntry } from './password-reset.repository';

export const EMAIL_VERIFICATIONS_COLLECTION = 'email_verifications';

/**
 * One verification token and, in the same document, the mail that carries it: the outbox entry
 * has the password resets' shape, so the same relay code publishes it. `userId`, `address` and
 * `mail` are null for the stand-in written for an address that gets no mail.
 */
export interface EmailVerificationDocument extends LiveLinkFields {
  _id: ObjectId;
  userId: ObjectId | null;
  /** The address the link was sent to, and the only one it proves. */
  address: string | null;
  /** SHA-256 of the token (hex): the token itself is never stored. */
  tokenHash: string;
  expiresAt: Date;
  createdAt: Date;
  mail: (Omit<MailOutboxEntry, 'envelope'> & { envelope: EmailVerificationMail }) | null;
}

/** Verification tokens in MongoDB. Used tokens are deleted, not flagged (see `consume`). */
export class MongoEmailVerificationRepository implements EmailVerificationRepository {
  private readonly rows: Collection<EmailVerificationDocument>;

  constructor(db: Db) {
    this.rows = db.collection<EmailVerificationDocument>(EMAIL_VERIFICATIONS_COLLECTION);
  }

  /** Expiry is checked in code and the relay's clean-up deletes expired rows, so no TTL index (FerretDB has none). */
  async ensureIndexes(): Promise<void> {
    await this.rows.createIndex({ tokenHash: 1 }, { unique: true, name: 'token_hash_unique' });
    await this.rows.createIndex({ userId: 1 }, { name: 'user_id' });
    await ensureLiveLinkIndex(this.rows);
    await this.rows.createIndex({ expiresAt: 1 }, { name: 'expires_at' });
  }

  /** The user's only live link from now on, with its mail (see `replaceLiveLink`); false when a racing request's stands. */
  async replaceWithMail(row: {
    userId: string;
    email: string;
    tokenHash: string;
    expiresAt: Date;
    envelope: EmailVerificationMail;
  }): Promise<boolean> {
    const userId = parseObjectId(row.userId);
    if (!userId) throw new Error('replaceWithMail: malformed user id');
    const now = new Date();
    return replaceLiveLink(this.rows, {
      _id: new ObjectId(),
      userId,
      address: row.email,
      tokenHash: row.tokenHash,
      expiresAt: row.expiresAt,
      createdAt: now,
      mail: { envelope: row.envelope, status: 'pending', attempts: 0, nextAttemptAt: now, sentAt: null },
    });
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

  async findActive(tokenHash: string, now: Date): Promise<EmailVerificationRecord | null> {
    const doc = await this.rows.findOne({ tokenHash, userId: { $ne: null }, expiresAt: { $gt: now } });
    if (!doc?.userId || !doc.address) return null;
    return { id: doc._id.toHexString(), userId: doc.userId.toHexString(), email: doc.address, expiresAt: doc.expiresAt };
  }

  /** A delete decides the winner: FerretDB v1 runs conditional updates as read-then-write, its delete reports one deletion only. */
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

  async deleteExpired(now: Date): Promise<number> {
    const { deletedCount } = await this.rows.deleteMany({ expiresAt: { $lte: now } });
    return deletedCount;
  }
}
