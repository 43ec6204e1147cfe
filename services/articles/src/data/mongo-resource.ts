import { mongoSort, searchFilter, type ListingQuery } from '@restgate/shared';
import type { Collection, Filter, ObjectId } from 'mongodb';
import { modelField, type Listing, type ResourceDescriptor } from '../domain/resource';

/** Documents store the model's fields under the same names, and the id as `_id`. */
export type StoredDoc<M extends { id: string }> = Omit<M, 'id'> & { _id: ObjectId };

/** A document as the domain sees it: `_id` becomes the hex `id`; every other field as stored. */
export function toModel<D extends { _id: ObjectId }>(doc: D): Omit<D, '_id'> & { id: string } {
  const { _id, ...fields } = doc;
  return { id: _id.toHexString(), ...fields };
}

/** `$set` for the fields given; an absent field must not become null. */
export function setDefined<T extends object>(changes: T): Partial<T> {
  return Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined)) as Partial<T>;
}

function dbField(resource: ResourceDescriptor, apiField: string): string {
  return apiField === 'id' ? '_id' : modelField(resource, apiField);
}

/**
 * One page of a listing: `q` over the searchable fields, the sort with `_id` as tie-breaker, only
 * the selected fields read, and the total matching count from the same filter.
 */
export async function findPage<D extends { _id: ObjectId }>(
  collection: Collection<D>,
  resource: ResourceDescriptor,
  query: ListingQuery,
): Promise<Listing<Partial<D> & { _id: ObjectId }>> {
  const toDb = (field: string) => dbField(resource, field);
  const filter = searchFilter(query.q, resource.searchable.map(toDb)) as Filter<D>;
  const projection = query.fields ? Object.fromEntries([['_id', 1], ...query.fields.map((f) => [toDb(f), 1])]) : undefined;
  const [rows, count] = await Promise.all([
    collection
      .find(filter, {
        projection,
        sort: mongoSort(query.sort, toDb),
        skip: (query.page - 1) * query.limit,
        limit: query.limit,
      })
      .toArray(),
    collection.countDocuments(filter),
  ]);
  return { rows: rows as Array<Partial<D> & { _id: ObjectId }>, count };
}
