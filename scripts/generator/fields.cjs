// @ts-check
'use strict';
// Field types: how `--fields` is read into the field definitions of a resource (FieldDef in
// @restgate/shared/resource, whose schemas give each type its meaning).

const { GeneratorError } = require('./errors.cjs');

/**
 * - `length`: min/max bound the length; `value`: they bound the number; `none`: not allowed.
 * - `text`: not trimmed, may be empty, long (articles' content); `string`: trimmed, 1 to max.
 */
const TYPES = {
  string: { ts: 'string', bounds: 'length', min: 1, max: 1000, maxLimit: 1_000_000, searchable: true, sortable: true },
  text: { ts: 'string', bounds: 'length', min: 0, max: 100_000, maxLimit: 1_000_000, searchable: true, sortable: false },
  integer: { ts: 'number', bounds: 'value', searchable: false, sortable: true },
  number: { ts: 'number', bounds: 'value', searchable: false, sortable: true },
  boolean: { ts: 'boolean', bounds: 'none', searchable: false, sortable: true },
  date: { ts: 'Date', bounds: 'none', searchable: false, sortable: true },
  email: { ts: 'string', bounds: 'max', max: 254, maxLimit: 254, searchable: true, sortable: true },
  url: { ts: 'string', bounds: 'max', max: 2000, maxLimit: 100_000, searchable: true, sortable: true },
  enum: { ts: null, bounds: 'none', searchable: true, sortable: true },
};
const TYPE_NAMES = [...Object.keys(TYPES).filter((t) => t !== 'enum'), 'enum(a|b|…)'];

/** Names the generated code gives meaning to: the id, the owner, timestamps, listing parameters. */
const RESERVED_FIELDS = [
  'id',
  'user',
  'userId',
  'createdAt',
  'updatedAt',
  'version',
  'q',
  'page',
  'limit',
  'sort',
  'fields',
  'after',
  'joi',
];

/** Words a field name cannot be: each field is also a `const` in the schemas file. */
const JS_RESERVED = new Set(
  (
    'break case catch class const continue debugger default delete do else enum export extends false finally for function if ' +
    'import in instanceof new null return super switch this throw true try typeof var void while with yield let static ' +
    'implements interface package private protected public await arguments eval undefined NaN Infinity constructor prototype ' +
    'hasOwnProperty toString valueOf isPrototypeOf propertyIsEnumerable toLocaleString require module exports process global ' +
    'globalThis console'
  ).split(' '),
);

const MAX_FIELDS = 40;

const isInteger = (text) => /^-?\d+$/.test(text);
const isNumber = (text) => /^-?\d+(\.\d+)?$/.test(text);

function parseBound(field, key, value, type) {
  const bounds = TYPES[type].bounds;
  if (bounds === 'none') throw new GeneratorError(`field "${field}": ${key}= does not apply to type ${type}`);
  if (bounds === 'max' && key === 'min') throw new GeneratorError(`field "${field}": min= does not apply to type ${type}`);
  const ok = type === 'number' ? isNumber(value) : isInteger(value);
  if (!ok) throw new GeneratorError(`field "${field}": ${key}=${value} is not ${type === 'number' ? 'a number' : 'an integer'}`);
  const n = Number(value);
  if (bounds !== 'value' && n < 0) throw new GeneratorError(`field "${field}": ${key}=${value} must not be negative`);
  if (!Number.isSafeInteger(Math.trunc(n))) throw new GeneratorError(`field "${field}": ${key}=${value} is too large`);
  return n;
}

/**
 * One field of a generated resource.
 * @typedef {{ name: string, type: string, required: boolean, values?: string[], min?: number, max?: number,
 *             filter: boolean, index: boolean, read?: string, write?: string }} Field
 */

/**
 * Reads one field: `name:type[:required|:optional][:min=N][:max=N][:index][:nofilter]`, the type
 * one of string, text, integer, number, boolean, date, email, url or `enum(a|b)`. Every field is a
 * listing filter unless `nofilter`; `index` gives it an index (for filters on a large collection).
 */
function parseField(spec) {
  const parts = spec.split(':').map((p) => p.trim());
  const [name, rawType, ...modifiers] = parts;
  if (!name) throw new GeneratorError(`invalid field spec "${spec}": expected name:type[:required][:max=N]`);
  if (!/^[a-z][a-zA-Z0-9]*$/.test(name) || name.length > 40) {
    throw new GeneratorError(
      `invalid field name "${name}": use camelCase letters and digits, starting with a lower-case letter (at most 40)`,
    );
  }
  if (RESERVED_FIELDS.includes(name)) {
    throw new GeneratorError(`field name "${name}" is reserved (the generated resource uses ${RESERVED_FIELDS.join(', ')} itself)`);
  }
  if (JS_RESERVED.has(name)) throw new GeneratorError(`field name "${name}" is a JavaScript reserved word or built-in name`);
  if (!rawType) throw new GeneratorError(`field "${name}" has no type: write ${name}:<type>, the type one of ${TYPE_NAMES.join(', ')}`);

  /** @type {Field} */
  const field = { name, type: rawType, required: false, values: undefined, min: undefined, max: undefined, filter: true, index: false };
  const enumMatch = /^enum\((.*)\)$/.exec(rawType);
  if (enumMatch) {
    field.type = 'enum';
    field.values = enumMatch[1].split('|').map((v) => v.trim());
    if (field.values.length === 0 || field.values.some((v) => !/^[A-Za-z0-9_.-]+$/.test(v) || v.length > 100)) {
      throw new GeneratorError(
        `field "${name}": enum values must be letters, digits, _ . or -, separated by | (e.g. enum(draft|published))`,
      );
    }
    if (new Set(field.values).size !== field.values.length) throw new GeneratorError(`field "${name}": an enum value is repeated`);
  } else if (!TYPES[rawType] || rawType === 'enum') {
    throw new GeneratorError(`unknown type "${rawType}" for field "${name}" (known: ${TYPE_NAMES.join(', ')})`);
  }

  const seen = new Set();
  for (const modifier of modifiers) {
    const [key, value] = modifier.split('=').map((p) => p.trim());
    if (seen.has(key)) throw new GeneratorError(`field "${name}": "${key}" is given twice`);
    seen.add(key);
    if (key === 'required' && value === undefined) field.required = true;
    else if (key === 'optional' && value === undefined) field.required = false;
    else if (key === 'index' && value === undefined) field.index = true;
    else if (key === 'nofilter' && value === undefined) field.filter = false;
    else if ((key === 'min' || key === 'max') && value !== undefined && value !== '') field[key] = parseBound(name, key, value, field.type);
    else {
      throw new GeneratorError(
        `field "${name}": unknown modifier "${modifier}" (known: required, optional, min=N, max=N, index, nofilter)`,
      );
    }
  }
  if (seen.has('required') && seen.has('optional')) throw new GeneratorError(`field "${name}" cannot be both required and optional`);
  if (field.index && !field.filter) throw new GeneratorError(`field "${name}": index is for filters, and nofilter turns its filters off`);

  const type = TYPES[field.type];
  if (type.bounds === 'length' || type.bounds === 'max') {
    const max = (field.max ??= /** @type {number} */ (type.max)); // every length-bounded type has one
    const min = (field.min ??= type.min ?? 0);
    if (max < 1) throw new GeneratorError(`field "${name}": max must be at least 1`);
    if (max > type.maxLimit) throw new GeneratorError(`field "${name}": max=${max} is above ${type.maxLimit}, the limit for ${field.type}`);
    if (field.type === 'string' && min < 1) {
      throw new GeneratorError(`field "${name}": a string has at least 1 character (use type text for a value that may be empty)`);
    }
  }
  if (field.min !== undefined && field.max !== undefined && field.min > field.max) {
    throw new GeneratorError(`field "${name}": min (${field.min}) is greater than max (${field.max})`);
  }
  return field;
}

/** `--fields "title:string:required,pages:integer"` → fields, in order. */
function parseFields(text) {
  if (typeof text !== 'string' || text.trim() === '') {
    throw new GeneratorError('--fields is required, e.g. --fields "title:string:required:max=200,pages:integer"');
  }
  const fields = text
    .split(',')
    .map((s) => s.trim())
    .map((s, i) => {
      if (!s) throw new GeneratorError(`invalid field spec: field ${i + 1} of --fields is empty`);
      return parseField(s);
    });
  if (fields.length > MAX_FIELDS) throw new GeneratorError(`at most ${MAX_FIELDS} fields`);
  const names = new Set();
  for (const f of fields) {
    if (names.has(f.name)) throw new GeneratorError(`field "${f.name}" is given twice`);
    names.add(f.name);
  }
  return fields;
}

module.exports = { TYPES, TYPE_NAMES, RESERVED_FIELDS, JS_RESERVED, parseField, parseFields };
