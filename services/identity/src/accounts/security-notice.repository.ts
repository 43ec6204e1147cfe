import { parseObjectId } from '@restgate/shared/data';
import { ObjectId, type Collection, type Db } from 'mongodb';
import type { SecurityNoticeMail, SecurityNoticeOutbox } from './security-notice';
import type { MailOutboxEntry } from '../outbox/outbox.repository';

export const SECURITY_NOTICES_COLLECTION = 'security_notices';

/** A notice not published within this long is not worth sending any more. */
const NOTICE_TTL_MS = 7 * 86_400_000;

/** One notice: an outbox entry of its own, in the shape the relay reads (`mail`, `expiresAt`). */
interface SecurityNoticeDocument {
  _id: ObjectId;
  userId: ObjectId;
  expiresAt: Date;
  createdAt: Date;
  mail: MailOutboxEntry<SecurityNoticeMail>;
}

export class MongoSecurityNoticeRepository implements SecurityNoticeOutbox {
  readonly collection = SECURITY_NOTICES_COLLECTION;
  private readonly rows: Collection<SecurityNoticeDocument>;

  constructor(db: Db) {
    this.rows = db.collection<SecurityNoticeDocument>(SECURITY_NOTICES_COLLECTION);
  }

  async ensureIndexes(): Promise<void> {
    await this.rows.createIndex({ expiresAt: 1 }, { name: 'expires_at' });
  }

  async insert(userId: string, envelope: SecurityNoticeMail): Promise<void> {
    const _id = parseObjectId(userId);
    if (!_id) throw new Error('security notice: malformed user id');
    const now = new Date();
    await this.rows.insertOne({
      _id: new ObjectId(),
      userId: _id,
      expiresAt: new Date(now.getTime() + NOTICE_TTL_MS),
      createdAt: now,
      mail: { envelope, status: 'pending', attempts: 0, nextAttemptAt: now, sentAt: null },
    });
  }

  /** Removes notices past their time (sent or not). */
  async deleteExpired(now: Date): Promise<number> {
    return (await this.rows.deleteMany({ expiresAt: { $lte: now } })).deletedCount;
  }
}
