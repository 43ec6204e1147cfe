import { Readable } from 'node:stream';
import type { Collection, Db, Filter } from 'mongodb';
import {
  createListingCursors,
  findPage,
  isDuplicateKeyError,
  type ListingCursors,
  type ListingPage,
  type ListingQuery,
} from '@restgate/shared/data';
import { GENESIS_HASH, hashOf, recordJson, type AuditInput, type AuditRecord } from '../domain/audit-record';
import { AUDIT_FILTERS } from '../domain/audit-filters';

/** A stored record: `_id` is its place in the log (`seq`), `eventId` its id. */
type AuditDocument = Omit<AuditRecord, 'id' | 'seq'> & { _id: number; eventId: string };

export const AUDIT_COLLECTION = 'audit_events';
/** How often an append tries again when another writer took the next place first. */
const APPEND_TRIES = 20;

const toRecord = ({ _id, eventId, ...rest }: AuditDocument): AuditRecord => ({ ...rest, id: eventId, seq: _id });

/** The first record whose hash or link does not hold, and why. */
export interface BrokenLink {
  seq: number;
  id: string;
  reason: 'hash_mismatch' | 'link_broken' | 'record_missing';
}

/**
 * The audit log: append-only. Each record takes the next `seq` (its `_id`: a unique key, so two
 * writers never take the same place; the loser reads the head again) and links to the record
 * before it by hash. An id already stored is not stored again (a unique index on `eventId`):
 * redeliveries of an event change nothing. Nothing here updates a record; only retention
 * deletes, the oldest first, never the newest.
 */
export class AuditRepository {
  readonly collection: Collection<AuditDocument>;
  private readonly cursors: ListingCursors;
  private head: { seq: number; hash: string } | undefined;

  constructor(db: Db, cursorSecret: string) {
    this.collection = db.collection<AuditDocument>(AUDIT_COLLECTION);
    this.cursors = createListingCursors(cursorSecret, 'audit-events');
  }

  async ensureIndexes(): Promise<void> {
    // One call per index: FerretDB v1 crashes when a multi-index createIndexes is repeated.
    await this.collection.createIndex({ eventId: 1 }, { name: 'event_id', unique: true });
    await this.collection.createIndex({ at: 1 }, { name: 'at' });
    await this.collection.createIndex({ type: 1, _id: -1 }, { name: 'type' });
    await this.collection.createIndex({ 'subject.id': 1, _id: -1 }, { name: 'subject' });
    await this.collection.createIndex({ 'actor.id': 1, _id: -1 }, { name: 'actor' });
    await this.collection.createIndex({ ip: 1, _id: -1 }, { name: 'ip' });
  }

  private async readHead(): Promise<{ seq: number; hash: string }> {
    const last = await this.collection
      .find({}, { projection: { _id: 1, hash: 1 } })
      .sort({ _id: -1 })
      .limit(1)
      .next();
    return last ? { seq: last._id, hash: last.hash } : { seq: 0, hash: GENESIS_HASH };
  }

  /** Stores `input` at the head of the chain: `stored`, or `duplicate` when its id is stored already. */
  async append(input: AuditInput): Promise<'stored' | 'duplicate'> {
    for (let tries = 0; tries < APPEND_TRIES; tries += 1) {
      const head = (this.head ??= await this.readHead());
      const partial = { ...input, seq: head.seq + 1, prevHash: head.hash };
      const hash = hashOf(partial);
      const { id, seq, ...rest } = partial;
      try {
        await this.collection.insertOne({ _id: seq, eventId: id, ...rest, hash });
        this.head = { seq, hash };
        return 'stored';
      } catch (err) {
        if (!isDuplicateKeyError(err)) throw err;
        this.head = undefined;
        // Either this event is stored already, or another writer took the place: look again.
        if (await this.collection.findOne({ eventId: id }, { projection: { _id: 1 } })) return 'duplicate';
      }
    }
    throw new Error('appending to the audit log: the head kept moving');
  }

  async findById(id: string): Promise<AuditRecord | null> {
    const doc = await this.collection.findOne({ eventId: id });
    return doc ? toRecord(doc) : null;
  }

  /** One page of the log, newest first unless sorted otherwise; `where` narrows it (a user's own events). */
  async list(query: ListingQuery, where?: Record<string, unknown>): Promise<ListingPage & { records: AuditRecord[] }> {
    const { docs, ...page } = await findPage(
      {
        collection: this.collection,
        cursors: this.cursors,
        searched: ['type'],
        filters: AUDIT_FILTERS,
        dbField: (field) => (field === 'id' ? 'eventId' : field === 'seq' ? '_id' : field),
        where,
        alwaysPresent: ['at'],
      },
      { ...query, fields: undefined },
    );
    return { ...page, records: docs.map(toRecord) };
  }

  /** Every record matching `filter` (stored form), oldest first, as NDJSON lines. */
  export(filter: Filter<AuditDocument>): Readable {
    const cursor = this.collection.find(filter).sort({ _id: 1 }).batchSize(500);
    async function* lines() {
      try {
        for await (const doc of cursor) yield `${JSON.stringify(recordJson(toRecord(doc)))}\n`;
      } finally {
        await cursor.close();
      }
    }
    return Readable.from(lines());
  }

  /**
   * Recomputes the chain over `from`..`to` (seq, both optional): each record's hash, its link to
   * the record before it (the one before `from` too, when still kept), and that no seq is
   * missing in between. The first break, if any.
   */
  async verify(
    from?: number,
    to?: number,
  ): Promise<{ checked: number; first: number | null; last: number | null; broken: BrokenLink | null }> {
    const range: Record<string, number> = {};
    if (from !== undefined) range.$gte = from;
    if (to !== undefined) range.$lte = to;
    const filter = Object.keys(range).length > 0 ? { _id: range } : {};
    let previous: { seq: number; hash: string } | null = null;
    if (from !== undefined && from > 1) {
      const before = await this.collection.findOne({ _id: from - 1 }, { projection: { _id: 1, hash: 1 } });
      if (before) previous = { seq: before._id, hash: before.hash };
    }
    let checked = 0;
    let first: number | null = null;
    let last: number | null = null;
    const cursor = this.collection
      .find(filter as Filter<AuditDocument>)
      .sort({ _id: 1 })
      .batchSize(500);
    try {
      for await (const doc of cursor) {
        const record = toRecord(doc);
        checked += 1;
        first ??= record.seq;
        last = record.seq;
        const broken = (reason: BrokenLink['reason']) => ({ checked, first, last, broken: { seq: record.seq, id: record.id, reason } });
        if (previous && record.seq !== previous.seq + 1) return broken('record_missing');
        if (hashOf(record) !== record.hash) return broken('hash_mismatch');
        if (previous && record.prevHash !== previous.hash) return broken('link_broken');
        previous = { seq: record.seq, hash: record.hash };
      }
    } finally {
      await cursor.close();
    }
    return { checked, first, last, broken: null };
  }

  /** Deletes records older than `before`, never the newest (the chain's head): how many, and the last one deleted. */
  async purge(before: Date): Promise<{ deleted: number; lastSeq: number | null; lastHash: string | null }> {
    const head = await this.readHead();
    const filter = { at: { $lt: before }, _id: { $lt: head.seq } };
    const last = await this.collection
      .find(filter, { projection: { _id: 1, hash: 1 } })
      .sort({ _id: -1 })
      .limit(1)
      .next();
    if (!last) return { deleted: 0, lastSeq: null, lastHash: null };
    // A prefix of the chain, so what is left has no hole: `at` may run a little out of order.
    const { deletedCount } = await this.collection.deleteMany({ _id: { $lte: last._id } });
    return { deleted: deletedCount, lastSeq: last._id, lastHash: last.hash };
  }
}
