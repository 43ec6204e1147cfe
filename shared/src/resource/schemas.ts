import type { ObjectSchema, Schema } from 'joi';
import { Joi } from '../joi';
import { httpUrlSchema } from '../http/http-url';
import { listingQuerySchema, type ListingQuery, type ListingSpec } from '../data/listing';
import { FILTER_LIMITS, type FilterSpec, type FilterType } from '../data/listing-filters';
import { apiFields, modelField, SYSTEM_FIELDS, type FieldDef, type AnyResourceDefinition } from './definition';

/** Bounds used when a field gives none. */
export const FIELD_DEFAULTS = { stringMax: 1000, textMax: 100_000, emailMax: 254, urlMax: 2000 } as const;

const label = (name: string) => {
  const spaced = name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
  return spaced.charAt(0).toUpperCase() + spaced.slice(1);
};

/** The length bounds of a string-like field, its defaults filled in. */
export function lengthBounds(field: FieldDef): { min: number; max: number } {
  switch (field.type) {
    case 'string':
      return { min: field.min ?? 1, max: field.max ?? FIELD_DEFAULTS.stringMax };
    case 'text':
      return { min: field.min ?? 0, max: field.max ?? FIELD_DEFAULTS.textMax };
    case 'email':
      return { min: 1, max: field.max ?? FIELD_DEFAULTS.emailMax };
    case 'url':
      return { min: 1, max: field.max ?? FIELD_DEFAULTS.urlMax };
    default:
      throw new Error(`a ${field.type} field has no length`);
  }
}

function describe(name: string, field: FieldDef): string {
  if (field.description) return field.description;
  const what = label(name);
  switch (field.type) {
    case 'string': {
      const { min, max } = lengthBounds(field);
      return `${what}, trimmed, ${min} to ${max} characters.`;
    }
    case 'text': {
      const { min, max } = lengthBounds(field);
      return min === 0 ? `${what}, up to ${max} characters; may be empty.` : `${what}, ${min} to ${max} characters.`;
    }
    case 'enum':
      return `${what}: one of ${(field.values ?? []).join(', ')}.`;
    case 'date':
      return `${what}, an ISO 8601 date.`;
    default:
      return `${what}.`;
  }
}

/** The joi rule for a field's value in a request body (not yet required or optional). */
export function fieldSchema(name: string, field: FieldDef): Schema {
  let schema: Schema;
  switch (field.type) {
    case 'string':
    case 'text': {
      const { min, max } = lengthBounds(field);
      // text is not trimmed: whitespace can matter in content.
      let s = field.type === 'string' ? Joi.string().trim() : Joi.string();
      s = min === 0 ? s.allow('') : s.min(min);
      schema = s.max(max);
      break;
    }
    case 'email':
      schema = Joi.string().trim().email().max(lengthBounds(field).max);
      break;
    case 'url':
      schema = httpUrlSchema(lengthBounds(field).max);
      break;
    case 'integer':
    case 'number': {
      let n = field.type === 'integer' ? Joi.number().integer() : Joi.number();
      if (field.min !== undefined) n = n.min(field.min);
      if (field.max !== undefined) n = n.max(field.max);
      schema = n;
      break;
    }
    case 'boolean':
      schema = Joi.boolean();
      break;
    case 'date':
      schema = Joi.date().iso();
      break;
    case 'enum':
      schema = Joi.string().valid(...(field.values ?? []));
      break;
  }
  schema = schema.description(describe(name, field));
  return field.example === undefined ? schema : schema.example(field.example);
}

/** The joi rule for a field's value in a view (as JSON: dates as ISO strings). */
function viewFieldSchema(field: FieldDef): Schema {
  switch (field.type) {
    case 'integer':
      return Joi.number().integer();
    case 'number':
      return Joi.number();
    case 'boolean':
      return Joi.boolean();
    case 'date':
      return Joi.string().isoDate();
    case 'enum':
      return Joi.string().valid(...(field.values ?? []));
    default:
      return Joi.string().allow('');
  }
}

const FILTER_TYPES: Record<FieldDef['type'], FilterType> = {
  string: 'string',
  text: 'string',
  email: 'string',
  url: 'string',
  enum: 'enum',
  integer: 'integer',
  number: 'number',
  boolean: 'boolean',
  date: 'date',
};

/**
 * A field's rule for filter values: its body rule, but a string at most FILTER_LIMITS.maxValueLength
 * characters (a URL holds a few kB; a long text is matched with `prefix`).
 */
function filterBounds(field: FieldDef): FieldDef {
  if (!['string', 'text', 'email', 'url'].includes(field.type)) return field;
  const { min, max } = lengthBounds(field);
  return { ...field, min: Math.min(min, FILTER_LIMITS.maxValueLength), max: Math.min(max, FILTER_LIMITS.maxValueLength) };
}

/**
 * The filters of a resource's listing: every field whose `filter` is not false, typed as in
 * bodies, and the system fields it names (all by default): the owner (`user`) and the timestamps.
 */
export function filtersOf(definition: AnyResourceDefinition): FilterSpec[] {
  const own = Object.entries(definition.fields)
    .filter(([, field]) => field.filter !== false)
    .map(([name, field]): FilterSpec => ({
      name,
      type: FILTER_TYPES[field.type],
      value: fieldSchema(name, filterBounds(field)),
      values: field.values,
      optional: !field.required,
      // The start of an address is no address: a prefix is a plain string of the field's length.
      ...(field.type === 'email' || field.type === 'url'
        ? {
            opValues: {
              prefix: Joi.string()
                .trim()
                .min(1)
                .max(filterBounds(field).max ?? FILTER_LIMITS.maxValueLength)
                .description(field.type === 'email' ? 'The start of an e-mail address.' : 'The start of a URL.'),
            },
          }
        : {}),
    }));
  const system = (definition.systemFilters ?? SYSTEM_FIELDS).map((name): FilterSpec =>
    name === 'user' ? { name, type: 'id', dbField: modelField(name) } : { name, type: 'date' },
  );
  return [...own, ...system];
}

/** The listing rules for the shared query parser. `id` may be named in `fields`; it comes back anyway. */
export function listingSpecOf(definition: AnyResourceDefinition): ListingSpec {
  return {
    searchable: [...definition.searchable],
    sortable: [...definition.sortable],
    selectable: ['id', ...apiFields(definition)],
    defaultSort: definition.defaultSort,
    filters: filtersOf(definition),
  };
}

/** Every request and response schema of a resource's routes. */
export function resourceSchemas(definition: AnyResourceDefinition) {
  const entries = Object.entries(definition.fields);
  const names = entries.map(([name]) => name);
  const one = definition.singular;
  const createBody = Joi.object(
    Object.fromEntries(
      entries.map(([name, field]) => [name, field.required ? fieldSchema(name, field).required() : fieldSchema(name, field)]),
    ),
  ).description('The caller becomes the owner; an owner, id or timestamp in the body is ignored.');
  const updateBody = Joi.object(Object.fromEntries(entries.map(([name, field]) => [name, fieldSchema(name, field)])))
    .or(...names)
    .messages({ 'object.missing': `send at least one of ${names.join(', ')}` })
    .description(
      `PUT and PATCH alike: omitted fields stay as they are; at least one of ${names.join(', ')} (otherwise 400, param "body").`,
    );
  const params = Joi.object<{ id: string }>({
    id: Joi.string()
      .required()
      .description(`${label(one)} id (24 hex characters); any other value is a 404.`),
  });
  const view = Joi.object({
    id: Joi.string().hex().length(24).required(),
    ...Object.fromEntries(
      entries.map(([name, field]) => [name, field.required ? viewFieldSchema(field).required() : viewFieldSchema(field)]),
    ),
    user: Joi.object({ id: Joi.string().required() }).required().description('The owner (creator).'),
    createdAt: Joi.string().isoDate().required(),
    updatedAt: Joi.string().isoDate().required().description('Equals createdAt until the first update.'),
  }).description(`${/^[aeiou]/.test(one) ? 'An' : 'A'} ${one}`);
  /** A listing row: `id`, and with `fields` only the fields named there. */
  const row = view.fork(apiFields(definition), (field) => field.optional());
  const listing = Joi.object({
    count: Joi.number()
      .integer()
      .min(0)
      .description('Total matching, ignoring paging (also in X-Total-Count); left out with `count=false`.'),
    rows: Joi.array().items(row).required().description('One page; with `fields`, only id and those fields.'),
  });
  const listingQuery: ObjectSchema<ListingQuery> = listingQuerySchema(listingSpecOf(definition));
  return { createBody, updateBody, params, view, listing, listingQuery };
}
