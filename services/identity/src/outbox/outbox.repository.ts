import { writeUnique } from '@restgate/shared/data';
import type { MessageEnvelope } from '@restgate/shared/messaging';
import { ObjectId, type Collection, type Db, type Filter } from 'mongodb';

/**
 * A mail request waiting in a document of its own collection (a link with its mail, a security
 * notice): the transactional outbox entry, written in the same insert as what it is about.
 */
export interface MailOutboxEntry<E extends MessageEnvelope = MessageEnvelope> {
  envelope: E;
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

/** What the outbox reads of a document that carries a mail: the entry, and the expiry past which it is not worth sending. */
interface OutboxDocument {
  _id: ObjectId;
  expiresAt: Date;
  mail: MailOutboxEntry | null;
}

/** A mail request a relay has claimed and must now publish. */
export interface OutboxItem {
  id: string;
  /** The collection the entry is in. */
  collection: string;
  envelope: MessageEnvelope;
  /** Attempts including this one. */
  attempts: number;
}

/** One claim of one attempt of an outbox entry: its `_id` makes it the only one. */
interface OutboxLeaseDocument {
  /** `<entry id>:<attempts before the claim>`. */
  _id: string;
  owner: string;
  /** The entry's own expiry: past it the lease is removed with the expired links. */
  expiresAt: Date;
  createdAt: Date;
}

export const OUTBOX_LEASES_COLLECTION = 'outbox_leases';

/** Due entries a relay looks at per claim: a few, so that it loses no time to a relay ahead of it. */
const CANDIDATES = 5;

/**
 * The outbox: the `mail` entries of the link documents (every purpose's collection). A relay claims an entry by
 * inserting the lease `<entry id>:<attempts>`: a unique-key insert has one winner on FerretDB as
 * on MongoDB, where a conditional update (findOneAndUpdate) is read-modify-write on FerretDB and
 * let two relays publish most entries twice. The winner alone then moves the entry's
 * `nextAttemptAt` past the lease and counts the attempt, so a relay that dies holding an entry
 * only delays it: once due again it has a new attempt number, hence a new lease to win.
 */
export class OutboxRepository {
  private readonly rows: Map<string, Collection<OutboxDocument>>;
  private readonly leases: Collection<OutboxLeaseDocument>;

  /** `collections`: those whose documents carry a `mail` entry. Leases share one collection: entry ids are unique across all. */
  constructor(db: Db, collections: string[]) {
    this.rows = new Map(collections.map((name) => [name, db.collection<OutboxDocument>(name)]));
    this.leases = db.collection<OutboxLeaseDocument>(OUTBOX_LEASES_COLLECTION);
  }

  async ensureIndexes(): Promise<void> {
    for (const rows of this.rows.values()) await rows.createIndex({ 'mail.status': 1, 'mail.nextAttemptAt': 1 }, { name: 'mail_pending' });
    await this.leases.createIndex({ expiresAt: 1 }, { name: 'lease_expiry' });
  }

  private collection(name: string): Collection<OutboxDocument> {
    const rows = this.rows.get(name);
    if (!rows) throw new Error(`outbox: no collection ${name}`);
    return rows;
  }

  /** Pending and due, token not expired (an expired link is not worth sending). */
  private due(now: Date): Filter<OutboxDocument> {
    return { 'mail.status': 'pending', 'mail.nextAttemptAt': { $lte: now }, expiresAt: { $gt: now } };
  }

  /** Claims the oldest due entry for `leaseMs`, or null when none is due (or every due one is another relay's). */
  async claimNext(owner: string, leaseMs: number, now = new Date()): Promise<OutboxItem | null> {
    const found = await Promise.all(
      [...this.rows].map(async ([collection, rows]) => {
        const docs = await rows.find(this.due(now)).sort({ 'mail.nextAttemptAt': 1 }).limit(CANDIDATES).toArray();
        return docs.map((doc) => ({ collection, rows, doc }));
      }),
    );
    // The oldest due first, whichever collection it is in.
    const candidates = found.flat().sort((a, b) => a.doc.mail!.nextAttemptAt.getTime() - b.doc.mail!.nextAttemptAt.getTime());
    for (const { collection, rows, doc } of candidates) {
      if (!doc.mail) continue;
      const attempts = doc.mail.attempts;
      const lease = { _id: `${doc._id.toHexString()}:${attempts}`, owner, expiresAt: doc.expiresAt, createdAt: now };
      if (!(await writeUnique(() => this.leases.insertOne(lease)))) continue; // another relay has this attempt
      // This attempt is ours alone; the filter drops it when what we read is already stale.
      const claimed = await rows.updateOne(
        { _id: doc._id, 'mail.status': 'pending', 'mail.attempts': attempts },
        { $set: { 'mail.nextAttemptAt': new Date(now.getTime() + leaseMs), 'mail.claimedBy': owner }, $inc: { 'mail.attempts': 1 } },
      );
      if (claimed.modifiedCount === 1)
        return { id: doc._id.toHexString(), collection, envelope: doc.mail.envelope, attempts: attempts + 1 };
    }
    return null;
  }

  /** Leases of entries whose link has expired: nothing can claim those again. */
  async deleteExpiredLeases(now = new Date()): Promise<number> {
    return (await this.leases.deleteMany({ expiresAt: { $lte: now } })).deletedCount;
  }

  /** After the broker's confirm: the entry is done. */
  async markSent(item: Pick<OutboxItem, 'id' | 'collection'>, now = new Date()): Promise<void> {
    await this.collection(item.collection).updateOne(
      { _id: new ObjectId(item.id), 'mail.status': 'pending' },
      { $set: { 'mail.status': 'sent', 'mail.sentAt': now }, $unset: { 'mail.lastError': '' } },
    );
  }

  /** Gives a claimed entry back, to be tried again at `retryAt`. */
  async release(item: Pick<OutboxItem, 'id' | 'collection'>, owner: string, retryAt: Date, error: string): Promise<void> {
    await this.collection(item.collection).updateOne(
      { _id: new ObjectId(item.id), 'mail.status': 'pending', 'mail.claimedBy': owner },
      { $set: { 'mail.nextAttemptAt': retryAt, 'mail.lastError': error.slice(0, 500) } },
    );
  }

  /** Mail requests not published yet (unexpired): the backlog. */
  async pendingCount(now = new Date()): Promise<number> {
    const counts = await Promise.all(
      [...this.rows.values()].map((rows) => rows.countDocuments({ 'mail.status': 'pending', expiresAt: { $gt: now } })),
    );
    return counts.reduce((sum, n) => sum + n, 0);
  }
}
