import { setTimeout as sleep } from 'node:timers/promises';
import type { Collection, ObjectId } from 'mongodb';
import { errors } from '../../errors';
import { changedFields, changeEvent, type ChangeEvent } from './change-event';
import type { ChangeOutbox, OutboxEntry } from './outbox';

type Doc = { _id: ObjectId } & Record<string, unknown>;

export interface RecordedWritesOptions {
  resource: string;
  collection: Collection<Doc>;
  outbox: ChangeOutbox;
  /** The record as events carry it, from a stored document (the id as `id`; nothing that must not leave the service). */
  toRecord: (doc: Doc) => { id: string } & Record<string, unknown>;
  /** Fields of the record an update sets on its own (not what `changed` reports). */
  systemFields: readonly string[];
  /** Called with the outbox entry of every change made (the relay publishes it now). */
  onChange?: (entry: OutboxEntry) => void;
}

/** How often a write tries again when another write of the same record holds its next version. */
const CLAIM_TRIES = 8;
const CLAIM_BACKOFF_MS = 15;

const versionOf = (doc: Doc) => (typeof doc.version === 'number' ? doc.version : 0);
/** The filter of a document still at `version` (0: stored before versions, no field). */
const atVersion = (version: number) => (version === 0 ? { version: { $exists: false } } : { version });

/** `doc` as `$set` leaves it: a dotted key (`providers.github`) sets a field inside an object, as MongoDB does. */
function applied(doc: Doc, $set: Record<string, unknown>): Doc {
  const out: Record<string, unknown> = { ...doc };
  for (const [key, value] of Object.entries($set)) {
    const path = key.split('.');
    let into = out;
    for (const part of path.slice(0, -1)) {
      const next = into[part];
      into = into[part] = next && typeof next === 'object' && !(next instanceof Date) ? { ...(next as Record<string, unknown>) } : {};
    }
    into[path[path.length - 1]!] = value;
  }
  return out as Doc;
}

/**
 * A collection's writes, each with its change event (outbox.ts says how the two are kept
 * together). Reads are the repository's; these are the three writes.
 */
export function recordedWrites(options: RecordedWritesOptions) {
  const { resource, collection, outbox, toRecord } = options;

  /** Claims `event`'s version, runs `write`, and gives the claim back when the write did not happen. */
  async function withClaim(event: ChangeEvent, write: () => Promise<boolean>): Promise<'done' | 'taken' | 'missed'> {
    const entry = await outbox.claim(event);
    if (!entry) return 'taken';
    let done = false;
    try {
      done = await write();
    } finally {
      if (!done) await outbox.abandon(event);
    }
    if (done) options.onChange?.(entry);
    return done ? 'done' : 'missed';
  }

  /**
   * Reads the record, decides, claims its next version, writes: again while another write takes
   * the version first. Null when the record is gone, does not match `filter`, or is not at `expected`.
   */
  async function change<T>(
    filter: Record<string, unknown>,
    expected: number | undefined,
    attempt: (doc: Doc, version: number) => { event: ChangeEvent; write: () => Promise<boolean>; result: T },
  ): Promise<T | null> {
    for (let tries = 0; tries < CLAIM_TRIES; tries += 1) {
      const doc = await collection.findOne(filter);
      if (!doc) return null;
      const version = versionOf(doc);
      if (expected !== undefined && version !== expected) return null;
      const { event, write, result } = attempt(doc, version);
      const outcome = await withClaim(event, write);
      if (outcome === 'done') return result;
      // Another write has this version: with If-Match the record is no longer the one named.
      if (outcome === 'taken' && expected !== undefined) return null;
      await sleep(CLAIM_BACKOFF_MS * (tries + 1));
    }
    throw errors.unavailable('The record is being changed by other requests; try again shortly.');
  }

  return {
    async insert(doc: Doc): Promise<void> {
      const event = changeEvent(resource, 'created', toRecord(doc), 1);
      const outcome = await withClaim(event, async () => {
        await collection.insertOne(doc);
        return true;
      });
      // A new id cannot be claimed already.
      if (outcome !== 'done') throw new Error(`${resource}: the create of ${event.recordId} found its event claimed`);
    },

    update(filter: Record<string, unknown>, $set: Record<string, unknown>, expected: number | undefined): Promise<Doc | null> {
      return change(filter, expected, (doc, version) => {
        const after = { ...applied(doc, $set), version: version + 1 } as Doc;
        const before = toRecord(doc);
        const record = toRecord(after);
        const changed = changedFields(before, record, ['version', ...options.systemFields]);
        const previous = Object.fromEntries(changedFields(before, record, ['version']).map((key) => [key, before[key] ?? null]));
        const event = changeEvent(resource, 'updated', record, version + 1, changed, new Date(), previous);
        const write = async () =>
          (await collection.updateOne({ _id: doc._id, ...atVersion(version) }, { $set: { ...$set, version: version + 1 } }))
            .matchedCount === 1;
        return { event, write, result: after };
      });
    },

    async remove(filter: Record<string, unknown>, expected: number | undefined): Promise<boolean> {
      const removed = await change(filter, expected, (doc, version) => {
        const event = changeEvent(resource, 'deleted', toRecord(doc), version + 1);
        const write = async () => (await collection.deleteOne({ _id: doc._id, ...atVersion(version) })).deletedCount === 1;
        return { event, write, result: true };
      });
      return removed === true;
    },
  };
}

export type RecordedWrites = ReturnType<typeof recordedWrites>;
