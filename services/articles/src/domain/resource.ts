import type { ListingSpec } from '@restgate/shared';

/**
 * What a resource declares about its fields. Listings (search, sort, field selection), database
 * projections and views all follow from it, so a generated resource changes only this and its model.
 */
export interface ResourceDescriptor<F extends string = string> {
  /** Each API field (besides `id`, which always comes back) → the model field behind it. */
  fields: Record<F, string>;
  /** API fields `q` searches in (case-insensitive literal substring). */
  searchable: F[];
  /** API fields `sort` accepts. */
  sortable: F[];
  /** Sort when the client gives none, e.g. `-createdAt`. */
  defaultSort: string;
}

/** A listing page as the domain sees it: the rows of one page and the total that matches. */
export interface Listing<T> {
  rows: T[];
  count: number;
}

/** A record loaded with only some fields (a listing with `fields`): `id` is always there. */
export type Selected<M extends { id: string }> = Pick<M, 'id'> & Partial<M>;

/** The listing rules for the shared query parser. `id` may be named in `fields`; it comes back anyway. */
export function listingSpecOf(resource: ResourceDescriptor): ListingSpec {
  return {
    searchable: resource.searchable,
    sortable: resource.sortable,
    selectable: ['id', ...Object.keys(resource.fields)],
    defaultSort: resource.defaultSort,
  };
}

/** The model field behind an API field. */
export function modelField(resource: ResourceDescriptor, apiField: string): string {
  return (resource.fields as Record<string, string>)[apiField] ?? apiField;
}
