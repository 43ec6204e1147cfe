import type { Schema } from 'joi';
import { Joi } from '../joi';

/**
 * Listing filters: `?<field>=<value>` and `?<field>[<op>]=<value>` on the fields a listing declares.
 * Each parameter is a key of the listing's joi schema, so its value is validated (and documented)
 * as the field's type, and what reaches MongoDB is built here from typed values: a client never
 * writes an operator.
 */

/** What a filter's values are. `id` is an owner's id (24 hex characters). */
export type FilterType = 'string' | 'enum' | 'integer' | 'number' | 'date' | 'boolean' | 'id';
export type FilterOp = 'eq' | 'ne' | 'gt' | 'gte' | 'lt' | 'lte' | 'in' | 'prefix' | 'exists';

/** One filterable field of a listing. */
export interface FilterSpec {
  /** The API field: parameters are `name` and `name[op]`. */
  name: string;
  type: FilterType;
  /** The field's rule as a request body has it (bounds included); equality takes exactly this. */
  value?: Schema;
  /** Enum values. */
  values?: readonly string[];
  /** The field may be absent from a record: `exists` applies. */
  optional?: boolean;
  /** A rule of its own for an operator (an e-mail's prefix is no e-mail). */
  opValues?: Partial<Record<FilterOp, Schema>>;
  /** The operators offered, when fewer than the type's. */
  ops?: readonly FilterOp[];
  /** The stored field (default: `name`). */
  dbField?: string;
  /** A condition of its own for a field whose stored form differs from the API's. */
  toMongo?: (op: FilterOp, value: unknown) => Record<string, unknown>;
}

/** A parsed filter: the field, the operator and the value, typed. */
export interface ParsedFilter {
  field: string;
  op: FilterOp;
  value: unknown;
}

export const FILTER_LIMITS = { maxIn: 50, maxInLength: 1000, maxValueLength: 500 } as const;

const OPS_BY_TYPE: Record<FilterType, FilterOp[]> = {
  string: ['eq', 'ne', 'in', 'prefix'],
  enum: ['eq', 'ne', 'in'],
  integer: ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in'],
  number: ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in'],
  date: ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in'],
  boolean: ['eq'],
  id: ['eq', 'ne', 'in'],
};

/** The operators a filter takes: its own list, else its type's, `exists` for optional fields. */
export function opsOf(filter: FilterSpec): FilterOp[] {
  const ops = filter.ops ? [...filter.ops] : [...OPS_BY_TYPE[filter.type]];
  if (filter.optional && !filter.ops && !ops.includes('exists')) ops.push('exists');
  return ops;
}

/** The query parameter of one operator; equality also answers to the bare field name. */
export const paramName = (field: string, op: FilterOp) => `${field}[${op}]`;

const MAX_SAFE = Number.MAX_SAFE_INTEGER;
const HEX_ID = /^[0-9a-fA-F]{24}$/;
const INTEGER = '-?[0-9]{1,16}';
const NUMBER = '-?[0-9]{1,16}(?:\\.[0-9]{1,16})?';
// Dates in filters are RFC 3339 date-times (or a bare date, midnight UTC): the documented pattern
// is exactly what is accepted. It stays simple (a fuzzer generates from it): a day past its
// month's end rolls over, as in JavaScript (February 30th is March 1st or 2nd). Digits are
// written [0-9]: a fuzzer reading `\d` as Python does would send other scripts' digits.
const DAY = '(?:0[1-9]|1[0-2])-(?:0[1-9]|[12][0-9]|3[01])';
const TIME = '(?:T(?:[01][0-9]|2[0-3]):[0-5][0-9](?::[0-5][0-9](?:\\.[0-9]{1,3})?)?(?:Z|[+-](?:[01][0-9]|2[0-3]):[0-5][0-9]))';
const DATE_TIME = `[0-9]{4}-${DAY}${TIME}?`;

const listPattern = (item: string) => `^${item}(?:,${item}){0,${FILTER_LIMITS.maxIn - 1}}$`;
const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const DATE_PARTS = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?(Z|([+-])(\d{2}):(\d{2})))?$/;

/** A date-time as the pattern allows it, built from its parts (any year from 0000 to 9999, as written; days roll over). */
function toDate(text: string): Date {
  const [, year, month, day, hour = '0', minute = '0', second = '0', ms = '0', , sign, offH = '0', offM = '0'] = DATE_PARTS.exec(text)!;
  const date = new Date(0);
  date.setUTCFullYear(Number(year), Number(month) - 1, Number(day));
  date.setUTCHours(Number(hour), Number(minute), Number(second), Number(ms.padEnd(3, '0')));
  const offset = (sign === '-' ? -1 : 1) * (Number(offH) * 60 + Number(offM));
  return new Date(date.getTime() - offset * 60_000);
}

const dateSchema = () =>
  Joi.string()
    .pattern(new RegExp(`^${DATE_TIME}$`))
    .messages({ 'string.pattern.base': '{{#label}} must be an ISO 8601 date-time, e.g. 2026-01-02T03:04:05Z' })
    .custom((value: string) => toDate(value))
    .description('An ISO 8601 date-time (RFC 3339), e.g. `2026-01-02T03:04:05Z`; a bare date is midnight UTC.');

const numberSchema = (type: 'integer' | 'number') =>
  type === 'integer' ? Joi.number().integer().min(-MAX_SAFE).max(MAX_SAFE) : Joi.number().min(-1e15).max(1e15);

/** The value rule of one operator of a filter. */
function valueSchema(filter: FilterSpec, op: FilterOp): Schema {
  const own = filter.opValues?.[op];
  if (own) return own;
  if (op === 'exists') return Joi.boolean().description('true: the field is set; false: it is not.');
  if (op === 'in') return inSchema(filter);
  switch (filter.type) {
    case 'date':
      return dateSchema();
    case 'id':
      return Joi.string().pattern(HEX_ID).description('A user id (24 hex characters).');
    case 'integer':
    case 'number':
      // Equality takes the body's rule; a range or `ne` may name any value of the type.
      return op === 'eq' && filter.value ? filter.value : numberSchema(filter.type);
    case 'enum':
      return Joi.string().valid(...(filter.values ?? []));
    default:
      return filter.value ?? Joi.string().max(1000);
  }
}

/** `in`: a comma list of at most FILTER_LIMITS.maxIn values of the field's type, matched against a pattern that says exactly that. */
function inSchema(filter: FilterSpec): Schema {
  let item: string;
  let convert: (text: string) => unknown;
  switch (filter.type) {
    case 'integer':
      [item, convert] = [INTEGER, Number];
      break;
    case 'number':
      [item, convert] = [NUMBER, Number];
      break;
    case 'date':
      [item, convert] = [DATE_TIME, toDate];
      break;
    case 'id':
      [item, convert] = ['[0-9a-fA-F]{24}', (text) => text];
      break;
    case 'enum':
      [item, convert] = [`(?:${(filter.values ?? []).map(escapeRegex).join('|')})`, (text) => text];
      break;
    default:
      // Strings: any characters but commas (and NUL); blanks around each value are trimmed, as in bodies.
      [item, convert] = ['[^,\\u0000]*', (text) => text.trim()];
  }
  return Joi.string()
    .min(1)
    .max(FILTER_LIMITS.maxInLength)
    .pattern(new RegExp(listPattern(item)))
    .messages({ 'string.pattern.base': `{{#label}} must be a comma list of at most ${FILTER_LIMITS.maxIn} values of the field's type` })
    .custom((value: string, helpers) => {
      const items = value.split(',').map(convert);
      if (items.some((v) => v === undefined))
        return helpers.message({ custom: `${helpers.state.path?.join('.')} holds a date that does not exist` });
      return filter.type === 'string' ? items.filter((v) => v !== '') : items;
    })
    .description(`A comma list of at most ${FILTER_LIMITS.maxIn} values: matches any of them.`);
}

/** Whether equality answers to the bare name: not for a field named like a listing parameter (`count`). */
const bareEquality = (filter: FilterSpec, reserved: readonly string[]) => !reserved.includes(filter.name);

/**
 * The joi keys of every filter parameter of a listing, each with its value rule. A field named
 * like one of the listing's own parameters (`reserved`) filters as `<field>[eq]` only.
 */
export function filterKeys(filters: readonly FilterSpec[], reserved: readonly string[] = []): Record<string, Schema> {
  const keys: Record<string, Schema> = {};
  for (const filter of filters) {
    for (const op of opsOf(filter)) {
      const schema = valueSchema(filter, op);
      if (op === 'eq' && bareEquality(filter, reserved))
        keys[filter.name] = schema.description(`Only rows whose ${filter.name} equals this.`);
      keys[paramName(filter.name, op)] = schema.description(describeOp(filter.name, op, schema));
    }
  }
  return keys;
}

function describeOp(field: string, op: FilterOp, schema: Schema): string {
  const what: Record<FilterOp, string> = {
    eq: `equals this (same as \`${field}=\`)`,
    ne: 'differs from this',
    gt: 'is greater than this',
    gte: 'is at least this',
    lt: 'is less than this',
    lte: 'is at most this',
    in: `is one of these (comma list, at most ${FILTER_LIMITS.maxIn})`,
    prefix: 'starts with this (case-insensitive; characters are literal)',
    exists: 'is set (`true`) or not (`false`)',
  };
  const own = schema.describe().flags as { description?: string } | undefined;
  return `Only rows whose ${field} ${what[op]}.${own?.description && op !== 'in' && op !== 'exists' ? ` ${own.description}` : ''}`;
}

/** The filters a validated query holds, taken out of it. */
export function takeFilters(
  value: Record<string, unknown>,
  filters: readonly FilterSpec[],
  reserved: readonly string[] = [],
): ParsedFilter[] {
  const parsed: ParsedFilter[] = [];
  for (const filter of filters) {
    for (const op of opsOf(filter)) {
      const bare = op === 'eq' && bareEquality(filter, reserved);
      for (const key of bare ? [filter.name, paramName(filter.name, op)] : [paramName(filter.name, op)]) {
        if (!(key in value)) continue;
        parsed.push({ field: filter.name, op, value: value[key] });
        delete value[key];
      }
    }
  }
  return parsed;
}

/** The message for a parameter no filter declares, naming what the field does take when it is one. */
export function unknownParamMessage(key: string, filters: readonly FilterSpec[]): string {
  const match = /^([^[\]]+)\[([^\]]*)\]$/.exec(key);
  const filter = match && filters.find((f) => f.name === match[1]);
  if (filter) return `${key}: ${filter.name} takes the operators ${opsOf(filter).join(', ')}, as ${filter.name}[op]`;
  return `${key} is not a parameter of this listing`;
}

/** The MongoDB condition of the parsed filters (AND), built from typed values only. */
export function filterQuery(parsed: readonly ParsedFilter[], filters: readonly FilterSpec[]): Record<string, unknown> {
  const conditions = parsed.map(({ field, op, value }) => {
    const filter = filters.find((f) => f.name === field)!;
    if (filter.toMongo) return filter.toMongo(op, value);
    return { [filter.dbField ?? filter.name]: condition(op, value) };
  });
  return conditions.length ? { $and: conditions } : {};
}

function condition(op: FilterOp, value: unknown): Record<string, unknown> {
  switch (op) {
    case 'prefix':
      return { $regex: `^${escapeRegex(String(value))}`, $options: 'i' };
    case 'exists':
      return { $exists: value === true };
    case 'in':
      return { $in: Array.isArray(value) ? value : [] };
    default:
      return { [`$${op}`]: value };
  }
}
