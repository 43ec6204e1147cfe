import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { ObjectId } from 'mongodb';
import { errors } from '../errors';
import type { ParsedFilter } from './listing-filters';

/**
 * `after` cursors: the sort values and id of the last row of a page, signed (HMAC-SHA256) so a
 * client can neither forge one nor carry one to another listing, sort or filter. The next page is
 * the rows strictly after that position in the sort order (keyset paging), so rows inserted or
 * deleted meanwhile never shift the walk.
 */

/** Where a page ended: the last row's stored sort values, `_id` last. */
export type CursorPosition = unknown[];

/** What a cursor is tied to: the listing (scope), its sort, filters and search. */
export interface CursorContext {
  sort: Array<[string, 1 | -1]>;
  filters: readonly ParsedFilter[];
  q?: string;
}

export interface ListingCursors {
  encode(position: CursorPosition, context: CursorContext): string;
  /** The position, or a 400 naming `after` for a forged, foreign or mismatched cursor. */
  decode(token: string, context: CursorContext): CursorPosition;
}

/** A cursor is `<payload>.<mac>`, both base64url: the documented shape of `after`. */
export const CURSOR_PATTERN = /^[A-Za-z0-9_-]{1,2000}\.[A-Za-z0-9_-]{43}$/;

type Encoded = string | number | boolean | null | { d: string } | { o: string };

const encodeValue = (value: unknown): Encoded => {
  if (value instanceof Date) return { d: value.toISOString() };
  if (value instanceof ObjectId) return { o: value.toHexString() };
  if (value === undefined) return null;
  return value as Encoded;
};

const decodeValue = (value: Encoded): unknown => {
  if (value !== null && typeof value === 'object') {
    if ('d' in value && typeof value.d === 'string') return new Date(value.d);
    if ('o' in value && typeof value.o === 'string' && ObjectId.isValid(value.o)) return new ObjectId(value.o);
    throw new Error('bad value');
  }
  return value;
};

const dateAware = (_key: string, value: unknown) => (value instanceof Date ? value.toISOString() : value);

/** A short digest of what the cursor was made for. */
function contextDigest(scope: string, context: CursorContext): string {
  const text = JSON.stringify([scope, context.sort, context.filters.map((f) => [f.field, f.op, f.value]), context.q ?? ''], dateAware);
  return createHash('sha256').update(text).digest('base64url').slice(0, 22);
}

/**
 * The cursors of one listing (`scope`, e.g. the collection), signed with a key derived from
 * `secret` (the service's PRINCIPAL_SECRET: a cursor proves nothing about a caller, only that this
 * service issued it).
 */
export function createListingCursors(secret: string, scope: string): ListingCursors {
  const key = createHmac('sha256', secret).update('restgate listing cursor v1').digest();
  const mac = (payload: string) => createHmac('sha256', key).update(payload).digest('base64url');
  const refuse = (detail: string) => errors.validation([{ param: 'after', message: detail, rule: 'cursor.invalid' }]);
  return {
    encode(position, context) {
      const payload = Buffer.from(JSON.stringify({ c: contextDigest(scope, context), p: position.map(encodeValue) })).toString('base64url');
      return `${payload}.${mac(payload)}`;
    },
    decode(token, context) {
      const [payload = '', signature = ''] = token.split('.');
      const expected = Buffer.from(mac(payload));
      const given = Buffer.from(signature);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        throw refuse('after is not a cursor this listing gave out: take it from the Link header of the previous page');
      }
      // Signed by this service, so well formed; read defensively all the same.
      let body: { c?: unknown; p?: unknown };
      try {
        body = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as typeof body;
      } catch {
        throw refuse('after is not a cursor this listing gave out: take it from the Link header of the previous page');
      }
      if (body.c !== contextDigest(scope, context) || !Array.isArray(body.p)) {
        throw refuse('after was made for another sort, filter or search: send the same ones as the page it came from');
      }
      return (body.p as Encoded[]).map(decodeValue);
    },
  };
}

/**
 * The MongoDB condition for "after `position` in `sort` order" (`sort` with `_id` last). A
 * missing value sorts before every other, as MongoDB orders them.
 *
 * When every record has the first sort field (`alwaysPresent`, e.g. `createdAt`), the condition
 * starts with a bound on it (`{f: {$lte: X}, $or: [{f: {$lt: X}}, ...]}` descending), from which an
 * index on the sort can start reading; an optional field keeps the plain `$or`, whose branches
 * must also reach the records that lack it.
 */
export function afterCondition(
  sort: Array<[string, 1 | -1]>,
  position: CursorPosition,
  alwaysPresent: (field: string) => boolean = (field) => field === '_id',
): Record<string, unknown> {
  const [first, direction] = sort[0] ?? [];
  const start = position[0];
  if (first !== undefined && first !== '_id' && sort.length > 1 && alwaysPresent(first) && start !== null && start !== undefined) {
    const bound = direction === 1 ? { $gte: start } : { $lte: start };
    const rest = afterCondition(sort.slice(1), position.slice(1), alwaysPresent);
    return { [first]: bound, $or: [{ [first]: direction === 1 ? { $gt: start } : { $lt: start } }, rest] };
  }
  const branches: Record<string, unknown>[] = [];
  sort.forEach(([field, direction], i) => {
    const same: Record<string, unknown> = {};
    sort.slice(0, i).forEach(([previous], j) => {
      same[previous] = position[j] === null ? null : { $eq: position[j] };
    });
    for (const beyond of beyondValue(position[i], direction, !alwaysPresent(field))) branches.push({ ...same, [field]: beyond });
  });
  return branches.length ? { $or: branches } : { _id: { $exists: false } };
}

function beyondValue(value: unknown, direction: 1 | -1, mayBeMissing: boolean): unknown[] {
  if (value === null || value === undefined) return direction === 1 ? [{ $ne: null }] : [];
  if (direction === 1) return [{ $gt: value }];
  return mayBeMissing ? [{ $lt: value }, null] : [{ $lt: value }];
}
