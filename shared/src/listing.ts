import type { ObjectSchema } from 'joi';
import { Joi } from './joi';

/** What a resource allows in its listings. Names are the API's field names. */
export interface ListingSpec {
  searchable: string[];
  sortable: string[];
  selectable: string[];
  defaultSort?: string;
}

export interface ListingQuery {
  q?: string;
  page: number;
  limit: number;
  /** `[field, 1 | -1]` pairs in order. */
  sort: Array<[string, 1 | -1]>;
  /** Fields to return; undefined means all. `id` is always included. */
  fields?: string[];
}

export const LISTING_LIMITS = { maxQ: 100, defaultLimit: 30, maxLimit: 100, maxOffset: 10_000 } as const;

function commaList(allowed: string[], param: string, allowDescending: boolean) {
  const description = allowDescending
    ? `Comma list of ${allowed.join(', ')}; prefix a field with - for descending order.`
    : `Comma list of fields to return, of ${allowed.join(', ')}; id always comes back.`;
  return Joi.string()
    .max(500)
    .description(description)
    // For the API docs only (the custom rule below validates, with a message naming the field):
    // exactly the lists it accepts, so a client or fuzzer reading the schema knows them too.
    .meta({ 'x-restgate-pattern': listPattern(allowed, allowDescending) })
    .custom((value: string, helpers) => {
      const items = value.split(',').map((s) => s.trim()).filter(Boolean);
      if (items.length === 0) return helpers.message({ custom: `${param} must name at least one field` });
      for (const item of items) {
        const name = allowDescending && item.startsWith('-') ? item.slice(1) : item;
        if (!allowed.includes(name)) {
          return helpers.message({ custom: `${param} may only use ${allowed.join(', ')} (got "${name}")` });
        }
      }
      return items;
    });
}

/** Comma-separated items, blanks allowed around them and between commas, at least one a listed name. */
function listPattern(allowed: string[], allowDescending: boolean): string {
  const name = `${allowDescending ? '-?' : ''}(?:${allowed.map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})`;
  const item = `\\s*${name}\\s*`;
  return `^(?:\\s*,)*${item}(?:,(?:${item}|\\s*))*$`;
}

/** The deepest page for a valid `limit`; an invalid one is reported on `limit`, not here. */
function maxPageFor(limit: unknown): number {
  if (typeof limit !== 'number' || limit < 1 || limit > LISTING_LIMITS.maxLimit) return Infinity;
  return Math.floor(LISTING_LIMITS.maxOffset / limit) + 1;
}

/** The joi schema for `q`, `page`, `limit`, `sort`, `fields`; unknown parameters are dropped. */
export function listingQuerySchema(spec: ListingSpec): ObjectSchema<ListingQuery> {
  return Joi.object({
    q: Joi.string().allow('').max(LISTING_LIMITS.maxQ),
    // The depth limit sits on `page` itself (through a ref to `limit`), so the 400 names `page`.
    page: Joi.number()
      .integer()
      .min(1)
      .default(1)
      .max(Joi.ref('limit', { adjust: maxPageFor }))
      // JSON Schema can't tie one parameter's bound to another's value: the docs carry the
      // deepest page any `limit` allows, and the description the rule itself.
      .meta({ 'x-restgate-maximum': maxPageFor(1) })
      .messages({ 'number.max': `page is too deep: (page - 1) × limit may be at most ${LISTING_LIMITS.maxOffset}` }),
    limit: Joi.number().integer().min(1).max(LISTING_LIMITS.maxLimit).default(LISTING_LIMITS.defaultLimit),
    sort: commaList(spec.sortable, 'sort', true).default(spec.defaultSort ?? '-createdAt'),
    fields: commaList(spec.selectable, 'fields', false),
  })
    .custom((value: { sort: string | string[] }) => {
      const items = typeof value.sort === 'string' ? value.sort.split(',') : value.sort;
      return { ...value, sort: items.map((item) => (item.startsWith('-') ? [item.slice(1), -1] : [item, 1])) };
    })
    .messages({ 'any.custom': '{{#error.message}}' }) as unknown as ObjectSchema<ListingQuery>;
}

/** `q` as a literal, case-insensitive substring: regex characters are escaped, so no pattern can backtrack. */
export function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A MongoDB filter matching `q` in any of `fields` (database field names). */
export function searchFilter(q: string | undefined, fields: string[]): Record<string, unknown> {
  if (!q) return {};
  const pattern = escapeRegex(q);
  return { $or: fields.map((field) => ({ [field]: { $regex: pattern, $options: 'i' } })) };
}

/** The MongoDB sort for a parsed `sort`, with `_id` as the tie-breaker so pages never overlap. */
export function mongoSort(sort: ListingQuery['sort'], toDbField: (field: string) => string = (f) => f): Record<string, 1 | -1> {
  const result: Record<string, 1 | -1> = {};
  for (const [field, direction] of sort) result[toDbField(field)] = direction;
  if (!('_id' in result)) result._id = sort[sort.length - 1]?.[1] ?? -1;
  return result;
}

/** The response of every listing: `{ count, rows }`, `X-Total-Count` and an RFC 8288 `Link`. */
export function listingResult<T>(rows: T[], count: number, query: ListingQuery, url: string) {
  const lastPage = Math.max(1, Math.ceil(count / query.limit));
  // Split at the first `?` only: a raw `?` inside the query string (legal, and likely in `q`) stays.
  const queryStart = url.indexOf('?');
  const path = queryStart === -1 ? url : url.slice(0, queryStart);
  const search = queryStart === -1 ? '' : url.slice(queryStart + 1);
  const pageUrl = (page: number) => {
    const params = new URLSearchParams(search);
    params.delete('access_token');
    params.set('page', String(page));
    params.set('limit', String(query.limit));
    return `<${path}?${params.toString()}>`;
  };
  const links = [`${pageUrl(1)}; rel="first"`];
  if (query.page > 1) links.push(`${pageUrl(Math.min(query.page - 1, lastPage))}; rel="prev"`);
  if (query.page < lastPage) links.push(`${pageUrl(query.page + 1)}; rel="next"`);
  links.push(`${pageUrl(lastPage)}; rel="last"`);
  return {
    status: 200,
    body: { count, rows },
    headers: { 'X-Total-Count': String(count), Link: links.join(', ') },
  };
}
