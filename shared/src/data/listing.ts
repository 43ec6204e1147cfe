import type { ObjectSchema } from 'joi';
import { Joi } from '../joi';
import { CURSOR_PATTERN } from './listing-cursor';
import { filterKeys, takeFilters, unknownParamMessage, type FilterSpec, type ParsedFilter } from './listing-filters';

/** What a resource allows in its listings. Names are the API's field names. */
/** What a resource allows in its listings. Names are the API's field names. */
export interface ListingSpec {
  searchable: string[];
  sortable: string[];
  selectable: string[];
  defaultSort?: string;
  /** The filterable fields, each with its type (its parameters are `name` and `name[op]`). */
  filters?: FilterSpec[];
}

export interface ListingQuery {
  q?: string;
  page: number;
  limit: number;
  /** `[field, 1 | -1]` pairs in order. */
  sort: Array<[string, 1 | -1]>;
  /** Fields to return; undefined means all. `id` is always included. */
  fields?: string[];
  /** The page after this cursor (from a previous answer's `Link`), instead of `page`. */
  after?: string;
  /** False: the total is not counted (nor answered). */
  count?: boolean;
  /** The filters given, typed; none when absent. */
  filters?: ParsedFilter[];
}

export const LISTING_LIMITS = { maxQ: 100, defaultLimit: 30, maxLimit: 100, maxPage: 100 } as const;

function commaList(allowed: string[], param: string, allowDescending: boolean) {
  const description = allowDescending
    ? `Comma list of ${allowed.join(', ')}; prefix a field with - for descending order.`
    : `Comma list of fields to return, of ${allowed.join(', ')}; id always comes back.`;
  return (
    Joi.string()
      .max(500)
      .description(description)
      // For the API docs only (the custom rule below validates, with a message naming the field):
      // exactly the lists it accepts, so a client or fuzzer reading the schema knows them too.
      .meta({ 'x-restgate-pattern': listPattern(allowed, allowDescending) })
      .custom((value: string, helpers) => {
        const items = value
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean);
        if (items.length === 0) return helpers.message({ custom: `${param} must name at least one field` });
        for (const item of items) {
          const name = allowDescending && item.startsWith('-') ? item.slice(1) : item;
          if (!allowed.includes(name)) {
            return helpers.message({ custom: `${param} may only use ${allowed.join(', ')} (got "${name}")` });
          }
        }
        return items;
      })
  );
}

/** Comma-separated items, blanks allowed around them and between commas, at least one a listed name. */
function listPattern(allowed: string[], allowDescending: boolean): string {
  const name = `${allowDescending ? '-?' : ''}(?:${allowed.map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})`;
  const item = `\\s*${name}\\s*`;
  return `^(?:\\s*,)*${item}(?:,(?:${item}|\\s*))*$`;
}

/** A listing's own parameters: a field of the same name filters as `<field>[eq]` only. */
const LISTING_PARAMS = ['q', 'page', 'limit', 'sort', 'fields', 'after', 'count'];

/** Parameters every request may carry besides a listing's own. */
const CREDENTIAL_PARAMS = ['access_token'];

/**
 * The joi schema for `q`, `page`, `limit`, `sort`, `fields`, `after`, `count` and the filters. A
 * parameter the listing doesn't know is a 400 naming it: a filter silently dropped returns wrong data.
 */
export function listingQuerySchema(spec: ListingSpec): ObjectSchema<ListingQuery> {
  const filters = spec.filters ?? [];
  const known = new Set<string>();
  const schema = Joi.object({
    q: Joi.string().allow('').max(LISTING_LIMITS.maxQ),
    // No default here: `after` must know whether the client sent a page (the parse sets 1).
    page: Joi.number().integer().min(1).max(LISTING_LIMITS.maxPage).meta({ 'x-restgate-default': 1 }),
    limit: Joi.number().integer().min(1).max(LISTING_LIMITS.maxLimit).default(LISTING_LIMITS.defaultLimit),
    sort: commaList(spec.sortable, 'sort', true).default(spec.defaultSort ?? '-createdAt'),
    fields: commaList(spec.selectable, 'fields', false),
    after: Joi.string()
      .pattern(CURSOR_PATTERN)
      .messages({ 'string.pattern.base': 'after is not a cursor this listing gave out: take it from the Link header of the previous page' })
      .custom((value: string, helpers) =>
        (helpers.state.ancestors[0] as Record<string, unknown>).page === undefined
          ? value
          : helpers.message({ custom: 'after and page cannot be combined: the cursor says where the page starts' }),
      ),
    count: Joi.boolean().default(true),
    ...filterKeys(filters, LISTING_PARAMS),
  });
  for (const key of Object.keys(schema.describe().keys ?? {})) known.add(key);
  return schema
    .pattern(
      new RegExp(`^(?!(?:${CREDENTIAL_PARAMS.join('|')})$)`),
      Joi.any()
        .custom((_value, helpers) => {
          const key = String(helpers.state.path?.[0] ?? '');
          return helpers.error('query.unknown', { message: known.has(key) ? `${key} is not allowed` : unknownParamMessage(key, filters) });
        })
        .messages({ 'query.unknown': '{{#message}}' }),
    )
    .custom((value: Record<string, unknown> & { sort: string | string[] }) => {
      const items = typeof value.sort === 'string' ? value.sort.split(',') : value.sort;
      const rest = { ...value };
      const parsed = takeFilters(rest, filters, LISTING_PARAMS);
      return {
        ...rest,
        page: value.page ?? 1,
        sort: items.map((item) => (item.startsWith('-') ? [item.slice(1), -1] : [item, 1])),
        ...(parsed.length ? { filters: parsed } : {}),
      };
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

/** What a listing found besides its rows: the total (unless `count=false`) and where the next page starts. */
export interface ListingPage {
  /** Undefined when not counted. */
  count?: number;
  /** The `after` cursor of the next page, when rows remain. */
  next?: string;
}

/**
 * The response of every listing: `{ count, rows }` (`{ rows }` with `count=false`), `X-Total-Count`
 * and an RFC 8288 `Link`. `next` carries the `after` cursor when the listing has one (in page
 * mode too), otherwise the next page number; `last` only when counted and within the page maximum.
 */
export function listingResult<T>(rows: T[], page: ListingPage, query: ListingQuery, url: string) {
  const { count, next } = page;
  const lastPage = count === undefined ? undefined : Math.max(1, Math.ceil(count / query.limit));
  // Split at the first `?` only: a raw `?` inside the query string (legal, and likely in `q`) stays.
  const queryStart = url.indexOf('?');
  const path = queryStart === -1 ? url : url.slice(0, queryStart);
  const search = queryStart === -1 ? '' : url.slice(queryStart + 1);
  const linkTo = (set: { page?: number; after?: string }) => {
    const params = new URLSearchParams(search);
    params.delete('access_token');
    params.delete('page');
    params.delete('after');
    if (set.page !== undefined) params.set('page', String(set.page));
    if (set.after !== undefined) params.set('after', set.after);
    params.set('limit', String(query.limit));
    return `<${path}?${params.toString()}>`;
  };
  const links = [`${linkTo({ page: 1 })}; rel="first"`];
  if (!query.after && query.page > 1) links.push(`${linkTo({ page: Math.min(query.page - 1, lastPage ?? Infinity) })}; rel="prev"`);
  if (next !== undefined) links.push(`${linkTo({ after: next })}; rel="next"`);
  else if (lastPage !== undefined && !query.after && query.page < lastPage && query.page < LISTING_LIMITS.maxPage) {
    links.push(`${linkTo({ page: query.page + 1 })}; rel="next"`);
  }
  if (lastPage !== undefined && lastPage <= LISTING_LIMITS.maxPage) links.push(`${linkTo({ page: lastPage })}; rel="last"`);
  const headers: { Link: string; 'X-Total-Count'?: string } = { Link: links.join(', ') };
  if (count !== undefined) headers['X-Total-Count'] = String(count);
  return { status: 200, body: count === undefined ? { rows } : { count, rows }, headers };
}

/** A listing's view with only the `fields` asked for (and `id`); all of it when none are. */
export function withFields<T extends object>(view: T, fields: string[] | undefined): Partial<T> {
  if (!fields) return view;
  return Object.fromEntries(Object.entries(view).filter(([key]) => key === 'id' || fields.includes(key))) as Partial<T>;
}
