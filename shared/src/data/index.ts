/**
 * `@restgate/shared/data`: MongoDB (the connection with its readiness check, ids, duplicate keys)
 * and listings: the query schema of a listing route, a page of rows found with its filters, sort
 * and signed cursors, and the answer with its `Link` header.
 */
export { createMongo, isDuplicateKeyError, parseObjectId, retryUntil, writeUnique, type MongoHandle } from './mongo';
export {
  listingQuerySchema,
  listingResult,
  withFields,
  LISTING_LIMITS,
  type ListingPage,
  type ListingQuery,
  type ListingSpec,
} from './listing';
export { type FilterSpec, type ParsedFilter } from './listing-filters';
export { createListingCursors, type ListingCursors } from './listing-cursor';
export { findPage } from './listing-page';
