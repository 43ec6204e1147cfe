import type Joi from 'joi';
import parseJoi from 'joi-to-json';
import { TRIMMED_WHITESPACE } from '../http/http-url';
import { isObject, type JsonSchema, type OpenApiComponents } from './types';

/** joi schemas as JSON Schema (2020-12, as OpenAPI 3.1 uses it). */

const NUMERIC_KEYWORDS = [
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'minProperties',
  'maxProperties',
];

const isJoiReference = (value: unknown) => isObject(value) && ('ref' in value || 'special' in value || 'function' in value);
/** Keywords whose values are data, not schemas: never rewritten. */
const VALUE_KEYWORDS = new Set(['examples', 'example', 'default', 'enum', 'const']);

const mapValues = (record: JsonSchema, fn: (value: unknown) => unknown): JsonSchema =>
  Object.fromEntries(Object.entries(record).map(([key, value]) => [key, fn(value)]));

/**
 * Makes the converter's output valid JSON Schema: joi limits given as references to other keys
 * (`page` ≤ f(`limit`)) have no JSON Schema form, so they become a sentence in the description.
 */
function sanitize(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(sanitize);
  if (!isObject(schema)) return schema;
  const out: JsonSchema = {};
  const notes: string[] = [];
  for (const [key, value] of Object.entries(schema)) {
    if (NUMERIC_KEYWORDS.includes(key) && typeof value !== 'number') {
      const path = isObject(value) && isObject(value.ref) && Array.isArray(value.ref.path) ? value.ref.path.join('.') : 'another parameter';
      notes.push(`${key} depends on \`${path}\``);
      continue;
    }
    if (key === 'default' && isJoiReference(value)) continue;
    // A pattern or bound that only the docs carry (`.meta({ 'x-restgate-pattern': … })`): joi checks it otherwise.
    if (key === 'x-restgate-pattern' || key === 'x-restgate-maximum' || key === 'x-restgate-default') {
      out[key.slice('x-restgate-'.length)] = value;
      continue;
    }
    out[key] = VALUE_KEYWORDS.has(key) ? value : key === 'properties' && isObject(value) ? mapValues(value, sanitize) : sanitize(value);
  }
  if (notes.length) out.description = [out.description, `(${notes.join('; ')}.)`].filter(Boolean).join(' ');
  return out;
}

export const DEPENDS_NOTE = /\s*\([^()]* depends on [^()]*\.\)/g;

/** Requests drop unknown keys (`stripUnknown`) rather than reject them, so the request schemas say so. */
export function allowUnknown(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(allowUnknown);
  if (!isObject(schema)) return schema;
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'additionalProperties' && value === false) continue;
    out[key] = VALUE_KEYWORDS.has(key)
      ? value
      : key === 'properties' && isObject(value)
        ? mapValues(value, allowUnknown)
        : allowUnknown(value);
  }
  return out;
}

/** The parts of joi's `describe()` that the string rules below read. */
interface JoiDescription {
  type?: string;
  allow?: unknown[];
  rules?: Array<{ name: string; args?: { limit?: unknown; enabled?: boolean } }>;
  keys?: Record<string, JoiDescription>;
  items?: JoiDescription[];
}

const BLANK = `[${TRIMMED_WHITESPACE}]`;
const NON_BLANK = `[^${TRIMMED_WHITESPACE}\\u0000]`;
const NO_NUL = '^[^\\u0000]*$';

/** "Between min and max characters once blanks at both ends are trimmed, and no NUL", as a pattern. */
function trimmedLengthPattern(min: number, max: number): string {
  const middle = max < 2 ? '' : min >= 2 ? `[^\\u0000]{${min - 2},${max - 2}}${NON_BLANK}` : `(?:[^\\u0000]{0,${max - 2}}${NON_BLANK})?`;
  return `^${BLANK}*${NON_BLANK}${middle}${BLANK}*$`;
}

function addPattern(json: JsonSchema, pattern: string): void {
  if (typeof json.pattern === 'string') json.allOf = [...(Array.isArray(json.allOf) ? json.allOf : []), { pattern }];
  else json.pattern = pattern;
}

/**
 * What joi-to-json leaves out of a string: joi refuses `''` unless `.allow('')` (JSON Schema
 * allows it unless `minLength` says otherwise), a `.trim()`med string is measured after
 * trimming, so its length bounds become a pattern on the value as sent, and `validateInput`
 * refuses the NUL character in every string.
 */
function addStringRules(description: JoiDescription, json: unknown): void {
  if (!isObject(json)) return;
  if (description.type === 'object' && description.keys && isObject(json.properties)) {
    for (const [key, child] of Object.entries(description.keys)) addStringRules(child, json.properties[key]);
    return;
  }
  if (description.type === 'array' && description.items?.length === 1) return addStringRules(description.items[0]!, json.items);
  if (description.type !== 'string' || json.type !== 'string') return;
  const limit = (name: string) => {
    const value = description.rules?.find((rule) => rule.name === name)?.args?.limit;
    return typeof value === 'number' ? value : undefined;
  };
  const trimmed = description.rules?.some((rule) => rule.name === 'trim' && rule.args?.enabled !== false) ?? false;
  if (description.allow?.includes('') || !trimmed) {
    if (!description.allow?.includes('')) json.minLength = Math.max(limit('min') ?? 0, 1);
    addPattern(json, NO_NUL);
    return;
  }
  const max = limit('max');
  delete json.minLength;
  if (max !== undefined) delete json.maxLength;
  // Without a maximum, "not blank" is all a pattern needs to say.
  addPattern(json, max === undefined ? `^${BLANK}*${NON_BLANK}[^\\u0000]*$` : trimmedLengthPattern(Math.max(limit('min') ?? 0, 1), max));
}

/**
 * JSON Schema (2020-12, as OpenAPI 3.1 uses it) for a joi schema, through `joi-to-json`, with
 * (for requests) the string rules it does not carry over. Shared schemas (`.id()` + `.link()`) land in `components`.
 */
export function joiToJsonSchema(schema: Joi.Schema, components?: OpenApiComponents, options: { request?: boolean } = {}): JsonSchema {
  const shared: Record<string, unknown> = {};
  const converted = parseJoi(schema as unknown as Parameters<typeof parseJoi>[0], 'open-api-3.1', shared) as JsonSchema;
  const { schemas: linked, ...rest } = converted;
  if (components && isObject(linked)) {
    for (const [name, value] of Object.entries(linked)) components.schemas[name] ??= sanitize(value) as JsonSchema;
  }
  const result = sanitize(rest) as JsonSchema;
  // Response schemas say "a string" loosely; only what a request must satisfy gets the exact rules.
  if (options.request) addStringRules(schema.describe() as JoiDescription, result);
  return result;
}
