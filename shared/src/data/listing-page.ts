import type { Collection, Document, Filter, FindOptions } from 'mongodb';
import { afterCondition, type ListingCursors } from './listing-cursor';
import { filterQuery, type FilterSpec } from './listing-filters';
import { mongoSort, searchFilter, type ListingPage, type ListingQuery } from './listing';

/** How a listing's API names meet its collection. */
export interface PageSource<D extends Document> {
  collection: Collection<D>;
  cursors: ListingCursors;
  /** The stored fields `q` searches. */
  searched: string[];
  filters: readonly FilterSpec[];
  /** API field → stored field (`id` → `_id`). */
  dbField?: (apiField: string) => string;
  /** A condition every row must meet besides the query's. */
  where?: Record<string, unknown>;
  /** A projection of the stored fields; `fields` narrows it further. */
  projection?: Record<string, 0 | 1>;
  /** Stored fields every record has (besides `_id`): an `after` cursor on one starts from a bound an index serves. */
  alwaysPresent?: readonly string[];
}

/** Conditions joined with AND, the empty ones left out. */
export function allOf(...conditions: Array<Record<string, unknown> | undefined>): Record<string, unknown> {
  const present = conditions.filter((c): c is Record<string, unknown> => c !== undefined && Object.keys(c).length > 0);
  return present.length === 0 ? {} : present.length === 1 ? present[0]! : { $and: present };
}

/**
 * One page of a listing: `q`, the filters, the sort (`_id` as tie-breaker), `page` or `after`;
 * the total unless `count=false`; and the cursor after the page's last row when more rows follow
 * (one row more than the page is read to know).
 */
export async function findPage<D extends Document>(source: PageSource<D>, query: ListingQuery): Promise<ListingPage & { docs: D[] }> {
  const toDb = source.dbField ?? ((field: string) => field);
  const sort = mongoSort(query.sort, toDb);
  const sortEntries = Object.entries(sort);
  const context = { sort: sortEntries, filters: query.filters ?? [], q: query.q };
  const matching = allOf(source.where, searchFilter(query.q, source.searched), filterQuery(query.filters ?? [], source.filters));
  const position = query.after ? source.cursors.decode(query.after, context) : undefined;
  const present = new Set(['_id', ...(source.alwaysPresent ?? [])]);
  const after = position && afterCondition(sortEntries, position, (field) => present.has(field));
  const filter = (after ? allOf(matching, after) : matching) as Filter<D>;
  // The sort fields are read too, for the cursor; the view shows only what `fields` selects.
  const projection = query.fields
    ? Object.fromEntries([['_id', 1], ...query.fields.map((f) => [toDb(f), 1]), ...sortEntries.map(([f]) => [f, 1])])
    : source.projection;
  const options: FindOptions = { projection, sort, skip: position ? 0 : (query.page - 1) * query.limit, limit: query.limit + 1 };
  const [found, count] = await Promise.all([
    source.collection.find(filter, options).toArray() as Promise<D[]>,
    query.count === false ? undefined : source.collection.countDocuments(matching as Filter<D>),
  ]);
  const docs = found.slice(0, query.limit);
  const last = docs[docs.length - 1] as Record<string, unknown> | undefined;
  const next =
    found.length > query.limit && last
      ? source.cursors.encode(
          sortEntries.map(([f]) => last[f] ?? null),
          context,
        )
      : undefined;
  return { docs, count, next };
}
