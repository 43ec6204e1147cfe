import { randomBytes } from 'node:crypto';
import type { Collection, Db } from 'mongodb';
import { isDuplicateKeyError, writeUnique } from '../../data/mongo';
import type { AuditEvent } from './audit-event';
import type { ChangeEvent } from './change-event';

/**
 * The change outbox. A MongoDB-compatible server without multi-document transactions (FerretDB)
 * cannot write a record and a second document in one operation, and FerretDB's updates are
 * read-modify-write, so an outbox entry kept inside the record could be lost to a relay's cleanup
 * racing a client's write. So the event is written first, as the claim on the record's next
 * version: the entry's `_id` is `<record id>:<seq>`, and a unique-key insert has one winner. Only
 * the winner then writes the record (conditioned on the version it read), and the relay publishes
 * an entry only once the record shows that its change happened; an entry whose change never
 * happened (the writer failed, or died in between) is voided (removed, freeing the version) once
 * it is older than `staleMs`.
 * No event without its change, no change without its event, and one writer per version.
 */
/** What the outbox holds: a change of a record, or an auth event (its own record: see audit-event.ts). */
export type OutboxEvent = ChangeEvent | AuditEvent;

export interface OutboxEntry {
  /** `<record id>:<seq>`. */
  _id: string;
  recordId: string;
  seq: number;
  event: OutboxEvent;
  status: 'pending' | 'published';
  /** Publish attempts so far (a relay's claim counts as one). */
  attempts: number;
  /** Not to be tried before this: a back-off, or the lease of the relay that claimed it. */
  nextAttemptAt: Date;
  createdAt: Date;
  doneAt?: Date;
  claimedBy?: string;
  lastError?: string;
}

/** One relay's claim of one attempt of an entry (`<entry id>#<attempts>`): a unique key makes it the only one. */
interface LeaseDocument {
  _id: string;
  owner: string;
  /** The call that took it (`leaseAll`), so that a call tells its leases from its own relay's others. */
  token?: string;
  expiresAt: Date;
}

export const CHANGE_OUTBOX_COLLECTION = 'outbox_changes';
const LEASES_COLLECTION = 'outbox_change_leases';
/** Published entries (and leases) are kept this long, for inspection, then removed. */
export const OUTBOX_KEEP_MS = 60 * 60_000;

export class ChangeOutbox {
  readonly entries: Collection<OutboxEntry>;
  private readonly leases: Collection<LeaseDocument>;

  constructor(db: Db) {
    this.entries = db.collection<OutboxEntry>(CHANGE_OUTBOX_COLLECTION);
    this.leases = db.collection<LeaseDocument>(LEASES_COLLECTION);
  }

  async ensureIndexes(): Promise<void> {
    // One call per index: FerretDB v1 crashes when a multi-index createIndexes is repeated.
    await this.entries.createIndex({ status: 1, nextAttemptAt: 1 }, { name: 'due' });
    await this.entries.createIndex({ recordId: 1, seq: 1 }, { name: 'record_seq' });
    await this.entries.createIndex({ doneAt: 1 }, { name: 'done' });
    await this.leases.createIndex({ expiresAt: 1 }, { name: 'lease_expiry' });
  }

  /**
   * Claims the event's version of its record: the entry, or null when another writer holds it.
   * `dueAfterMs`: a relay's pass leaves it alone that long (the writer's own relay publishes it).
   */
  async claim(event: OutboxEvent, now = new Date(), dueAfterMs = 0): Promise<OutboxEntry | null> {
    const entry: OutboxEntry = {
      _id: `${event.recordId}:${event.seq}`,
      recordId: event.recordId,
      seq: event.seq,
      event,
      status: 'pending',
      attempts: 0,
      nextAttemptAt: new Date(now.getTime() + dueAfterMs),
      createdAt: now,
    };
    return (await writeUnique(() => this.entries.insertOne(entry))) ? entry : null;
  }

  /** The writer's change did not happen: its claim goes, so that the next writer may have the version. */
  async abandon(event: OutboxEvent): Promise<void> {
    await this.entries.deleteOne({ _id: `${event.recordId}:${event.seq}`, 'event.id': event.id, status: 'pending' });
  }

  /** Due pending entries, oldest first. */
  async due(limit: number, now = new Date()): Promise<OutboxEntry[]> {
    return this.entries
      .find({ status: 'pending', nextAttemptAt: { $lte: now } })
      .sort({ nextAttemptAt: 1, createdAt: 1 })
      .limit(limit)
      .toArray();
  }

  /**
   * Takes this attempt of each of `entries` for `leaseMs` (as `lease`, in three calls for the
   * batch): the entries whose lease this relay won.
   */
  async leaseAll(entries: OutboxEntry[], owner: string, leaseMs: number, now = new Date()): Promise<OutboxEntry[]> {
    if (entries.length === 0) return [];
    const expiresAt = new Date(now.getTime() + OUTBOX_KEEP_MS);
    // A token of this call's own: the same relay's `offer` may hold a lease of one of them, which
    // is not this call's to use.
    const token = randomBytes(8).toString('hex');
    const leases = entries.map((entry) => ({ _id: `${entry._id}#${entry.attempts}`, owner, token, expiresAt }));
    try {
      await this.leases.insertMany(leases, { ordered: false });
    } catch (err) {
      // Another relay's lease of some of them: which ones are ours is read below.
      const writeErrors = (err as { writeErrors?: unknown[] }).writeErrors;
      if (!isDuplicateKeyError(err) && !(Array.isArray(writeErrors) && writeErrors.every(isDuplicateKeyError))) throw err;
    }
    // Which leases this call won: another insert of the same id (another relay's, or this one's
    // `offer`) won the others.
    const ours = new Set(
      (await this.leases.find({ _id: { $in: leases.map((l) => l._id) }, token }, { projection: { _id: 1 } }).toArray()).map((l) => l._id),
    );
    const won = entries.filter((entry) => ours.has(`${entry._id}#${entry.attempts}`));
    if (won.length > 0) {
      await this.entries.updateMany(
        { _id: { $in: won.map((e) => e._id) }, status: 'pending' },
        { $set: { nextAttemptAt: new Date(now.getTime() + leaseMs), claimedBy: owner }, $inc: { attempts: 1 } },
      );
    }
    return won.map((entry) => ({ ...entry, attempts: entry.attempts + 1 }));
  }

  /**
   * Takes this attempt of one entry for `leaseMs` (a unique lease insert, then the entry moved
   * past the lease): false when another relay has it, or it changed.
   */
  async lease(entry: OutboxEntry, owner: string, leaseMs: number, now = new Date()): Promise<boolean> {
    const lease = { _id: `${entry._id}#${entry.attempts}`, owner, expiresAt: new Date(now.getTime() + OUTBOX_KEEP_MS) };
    if (!(await writeUnique(() => this.leases.insertOne(lease)))) return false;
    const { modifiedCount } = await this.entries.updateOne(
      { _id: entry._id, status: 'pending', attempts: entry.attempts },
      { $set: { nextAttemptAt: new Date(now.getTime() + leaseMs), claimedBy: owner }, $inc: { attempts: 1 } },
    );
    return modifiedCount === 1;
  }

  /** Of the records named, the pending entries and the later claims: what ordering and outcomes need, in two reads. */
  async around(entries: OutboxEntry[]): Promise<{ pending: Map<string, number[]>; latest: Map<string, number> }> {
    const recordIds = [...new Set(entries.map((e) => e.recordId))];
    const rows = await this.entries.find({ recordId: { $in: recordIds } }, { projection: { recordId: 1, seq: 1, status: 1 } }).toArray();
    const pending = new Map<string, number[]>();
    const latest = new Map<string, number>();
    for (const row of rows) {
      latest.set(row.recordId, Math.max(latest.get(row.recordId) ?? 0, row.seq));
      if (row.status === 'pending') pending.set(row.recordId, [...(pending.get(row.recordId) ?? []), row.seq]);
    }
    return { pending, latest };
  }

  async publishedAll(ids: string[], now = new Date()): Promise<void> {
    if (ids.length > 0)
      await this.entries.updateMany({ _id: { $in: ids }, status: 'pending' }, { $set: { status: 'published', doneAt: now } });
  }

  /** Claims whose change never happened: removed, so that the next writer of the record may claim the version. */
  async voidAll(ids: string[]): Promise<void> {
    if (ids.length > 0) await this.entries.deleteMany({ _id: { $in: ids }, status: 'pending' });
  }

  async releaseAll(ids: string[], owner: string, retryAt: Date): Promise<void> {
    if (ids.length > 0)
      await this.entries.updateMany({ _id: { $in: ids }, status: 'pending', claimedBy: owner }, { $set: { nextAttemptAt: retryAt } });
  }

  /** Gives an entry back, to be tried again at `retryAt`. */
  async release(entry: OutboxEntry, owner: string, retryAt: Date, error?: string): Promise<void> {
    await this.entries.updateOne(
      { _id: entry._id, status: 'pending', claimedBy: owner },
      { $set: { nextAttemptAt: retryAt, ...(error ? { lastError: error.slice(0, 500) } : {}) } },
    );
  }

  async pendingCount(): Promise<number> {
    return this.entries.countDocuments({ status: 'pending' });
  }

  /** Removes entries published longer than OUTBOX_KEEP_MS ago, and expired leases. */
  async purge(now = new Date()): Promise<number> {
    const before = new Date(now.getTime() - OUTBOX_KEEP_MS);
    const { deletedCount } = await this.entries.deleteMany({ status: 'published', doneAt: { $lte: before } });
    await this.leases.deleteMany({ expiresAt: { $lte: now } });
    return deletedCount;
  }
}
