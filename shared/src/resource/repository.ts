import type { Collection, Db, Filter, ObjectId as ObjectIdType } from 'mongodb';
import { ObjectId } from 'mongodb';
import { mongoSort, searchFilter, type ListingQuery } from '../listing';
import { parseObjectId } from '../mongo';
import { modelField, type AnyResourceDefinition } from './definition';
import type { Selected } from './view';

/** A listing page as the domain sees it: the rows of one page and the total that matches. */
export interface Listing<T> {
  rows: T[];
  count: number;
}

/** Storage as a resource's use cases need it; plain objects in and out. */
export interface ResourceRepository<M extends { id: string }> {
  insert(record: Omit<M, 'id'>): Promise<M>;
  /** Null for an unknown or malformed id. */
  findById(id: string): Promise<M | null>;
  /** Rows carry `id` and the fields `query.fields` selects (all when none). */
  list(query: ListingQuery): Promise<Listing<Selected<M>>>;
  /** Sets the given fields (an undefined one is left alone); null when the record is gone. */
  update(id: string, changes: Partial<Omit<M, 'id'>>): Promise<M | null>;
  /** False when there was nothing to remove. */
  remove(id: string): Promise<boolean>;
}

type Doc = { _id: ObjectIdType } & Record<string, unknown>;

/** `_id` becomes the hex `id`; every other field as stored. */
function toModel<M>(doc: Doc): M {
  const { _id, ...fields } = doc;
  return { id: _id.toHexString(), ...fields } as M;
}

const dbField = (apiField: string) => (apiField === 'id' ? '_id' : modelField(apiField));

/**
 * The records of `definition` in the collection of its name: documents hold the model's fields
 * under the same names, and the id as `_id`.
 */
export function createResourceRepository<M extends { id: string }>(
  db: Db,
  definition: AnyResourceDefinition,
): ResourceRepository<M> & { collection: Collection<Doc>; ensureIndexes(): Promise<void> } {
  const collection = db.collection<Doc>(definition.name);
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
    },

    async insert(record) {
      const doc = { _id: new ObjectId(), ...record } as Doc;
      await collection.insertOne(doc);
      return toModel<M>(doc);
    },

    async findById(id) {
      const _id = parseObjectId(id);
      const doc = _id && (await collection.findOne({ _id }));
      return doc ? toModel<M>(doc) : null;
    },

    async list(query) {
      // q over the searchable fields; the sort with `_id` as tie-breaker; only the selected fields read.
      const filter = searchFilter(query.q, definition.searchable.map(dbField)) as Filter<Doc>;
      const projection = query.fields ? Object.fromEntries([['_id', 1], ...query.fields.map((f) => [dbField(f), 1])]) : undefined;
      const [rows, count] = await Promise.all([
        collection
          .find(filter, { projection, sort: mongoSort(query.sort, dbField), skip: (query.page - 1) * query.limit, limit: query.limit })
          .toArray(),
        collection.countDocuments(filter),
      ]);
      return { rows: rows.map((row) => toModel<Selected<M>>(row)), count };
    },

    async update(id, changes) {
      const _id = parseObjectId(id);
      // An absent field must not become null.
      const $set = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined));
      const doc = _id && (await collection.findOneAndUpdate({ _id }, { $set }, { returnDocument: 'after' }));
      return doc ? toModel<M>(doc) : null;
    },

    async remove(id) {
      const _id = parseObjectId(id);
      return _id !== null && (await collection.deleteOne({ _id })).deletedCount === 1;
    },
  };
}
