import type { Collection, Db, ObjectId as ObjectIdType, UpdateFilter } from 'mongodb';
import { ObjectId } from 'mongodb';
import type { ListingPage, ListingQuery } from '../data/listing';
import { createListingCursors } from '../data/listing-cursor';
import { findPage } from '../data/listing-page';
import { parseObjectId } from '../data/mongo';
import { modelField, type AnyResourceDefinition } from './definition';
import { filtersOf } from './schemas';
import type { Selected } from './view';
import type { ChangeOutbox, OutboxEntry } from './events/outbox';
import { recordedWrites } from './events/recorded-writes';

/** A listing page as the domain sees it: the rows of one page, the total (unless not counted) and the next cursor. */
export interface Listing<T> extends ListingPage {
  rows: T[];
}

/** Storage as a resource's use cases need it; plain objects in and out. */
export interface ResourceRepository<M extends { id: string; version: number }> {
  /** Stores a new record at version 1. */
  insert(record: Omit<M, 'id' | 'version'>): Promise<M>;
  /** Null for an unknown or malformed id, or one `where` (a rule's filter) does not match. */
  findById(id: string, where?: Record<string, unknown>): Promise<M | null>;
  /** Rows carry `id` and the fields `query.fields` selects (all when none); only rows `where` matches. */
  list(query: ListingQuery, where?: Record<string, unknown>): Promise<Listing<Selected<M>>>;
  /**
   * Sets the given fields (an undefined one is left alone) and the next version; null when the
   * record is gone, or (with `version`) is no longer at that version, or `where` does not match
   * it: the checks and the write are one operation.
   */
  update(id: string, changes: Partial<Omit<M, 'id' | 'version'>>, version?: number, where?: Record<string, unknown>): Promise<M | null>;
  /** False when there was nothing to remove (or, with `version`, not at that version; or `where` does not match it). */
  remove(id: string, version?: number, where?: Record<string, unknown>): Promise<boolean>;
}

/** `where` (a rule's filter) joined to a record's own conditions, never replacing one of them. */
const within = (where: Record<string, unknown> | undefined) => (where && Object.keys(where).length > 0 ? { $and: [where] } : {});

type Doc = { _id: ObjectIdType } & Record<string, unknown>;

/** `_id` becomes the hex `id`; every other field as stored; a record from before versions is at 0. */
function toModel<M>(doc: Doc): M {
  const { _id, version, ...fields } = doc;
  return { id: _id.toHexString(), ...fields, version: typeof version === 'number' ? version : 0 } as M;
}

/** The filter of a record at `version` (version 0: stored before versions, no field). */
const atVersion = (version: number | undefined) =>
  version === undefined ? {} : version === 0 ? { version: { $exists: false } } : { version };

const dbField = (apiField: string) => (apiField === 'id' ? '_id' : modelField(apiField));

/**
 * The records of `definition` in the collection of its name: documents hold the model's fields
 * under the same names, and the id as `_id`.
 */
export function createResourceRepository<M extends { id: string; version: number }>(
  db: Db,
  definition: AnyResourceDefinition,
  options: {
    cursorSecret: string;
    /**
     * Change events: each write records its event in this outbox (events/outbox.ts), and
     * `onChange` gets its entry after the write (the relay's `offer`). Without, writes record nothing.
     */
    events?: { outbox: ChangeOutbox; onChange?: (entry: OutboxEntry) => void };
  },
): ResourceRepository<M> & { collection: Collection<Doc>; ensureIndexes(): Promise<void> } {
  const collection = db.collection<Doc>(definition.name);
  const recorded =
    options.events &&
    recordedWrites({
      resource: definition.name,
      collection,
      outbox: options.events.outbox,
      toRecord: (doc) => toModel(doc),
      systemFields: ['updatedAt'],
      onChange: options.events.onChange,
    });
  const source = {
    collection,
    cursors: createListingCursors(options.cursorSecret, definition.name),
    searched: definition.searchable.map(dbField),
    filters: filtersOf(definition),
    dbField,
    // Set on create and never unset: the system dates and the required fields.
    alwaysPresent: [
      'createdAt',
      'updatedAt',
      ...Object.entries(definition.fields)
        .filter(([, def]) => def.required)
        .map(([name]) => modelField(name)),
    ],
  };
  return {
    collection,

    async ensureIndexes() {
      // One call per index: FerretDB v1 crashes when a multi-index createIndexes is repeated.
      // The default listing sort, `_id` included because mongoSort adds it as the tie-breaker.
      await collection.createIndex({ createdAt: -1, _id: -1 }, { name: 'createdAt_id' });
      // An owner's records, newest first.
      await collection.createIndex({ userId: 1, createdAt: -1 }, { name: 'owner_createdAt' });
      const field = definition.defaultSort.replace(/^-/, '');
      if (field !== 'createdAt') {
        const direction = definition.defaultSort.startsWith('-') ? -1 : 1;
        await collection.createIndex({ [modelField(field)]: direction, _id: direction }, { name: `${field}_id` });
      }
      // The fields the definition marks `index`, for their filters (and sorts).
      for (const [name, def] of Object.entries(definition.fields)) {
        if (def.index) await collection.createIndex({ [name]: 1, _id: 1 }, { name: `${name}_filter` });
      }
    },

    async insert(record) {
      const doc = { _id: new ObjectId(), ...record, version: 1 } as Doc;
      if (recorded) await recorded.insert(doc);
      else await collection.insertOne(doc);
      return toModel<M>(doc);
    },

    async findById(id, where) {
      const _id = parseObjectId(id);
      const doc = _id && (await collection.findOne({ _id, ...within(where) }));
      return doc ? toModel<M>(doc) : null;
    },

    async list(query, where) {
      const { docs, count, next } = await findPage(where ? { ...source, where } : source, query);
      return { rows: docs.map((row) => toModel<Selected<M>>(row)), count, next };
    },

    async update(id, changes, version, where) {
      const _id = parseObjectId(id);
      // An absent field must not become null.
      const $set = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined));
      if (recorded) {
        const after = _id && (await recorded.update({ _id, ...within(where) }, $set, version));
        return after ? toModel<M>(after) : null;
      }
      const doc =
        _id &&
        (await collection.findOneAndUpdate(
          { _id, ...atVersion(version), ...within(where) },
          { $set, $inc: { version: 1 } } as unknown as UpdateFilter<Doc>,
          {
            returnDocument: 'after',
          },
        ));
      return doc ? toModel<M>(doc) : null;
    },

    async remove(id, version, where) {
      const _id = parseObjectId(id);
      if (recorded) return _id !== null && (await recorded.remove({ _id, ...within(where) }, version));
      return _id !== null && (await collection.deleteOne({ _id, ...atVersion(version), ...within(where) })).deletedCount === 1;
    },
  };
}
