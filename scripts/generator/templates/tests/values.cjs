'use strict';
// Per field type: the values the generated tests send, store, expect and refuse. Each returns
// TypeScript source text.

const { label, numberLiteral, quote } = require('../../fields.cjs');

/** Whether an API body of this length stays under the default BODY_LIMIT (100 kB) with room to spare. */
const testableLength = (n) => n <= 100_000;

const clamp = (value, min, max) => Math.min(Math.max(value, min ?? -Infinity), max ?? Infinity);

/** A valid integer/number for the builder: 7 (or 1.5) moved into the field's bounds. */
function numericValue(f) {
  if (f.type === 'integer') return clamp(7, f.min, f.max);
  const v = clamp(1.5, f.min, f.max);
  return v;
}

/** `marker` (a TS expression) inside a value the marker field accepts. */
function markerValue(f, expr) {
  if (f.type === 'email') return `\`\${${expr}}@example.com\``;
  if (f.type === 'url') return `\`https://example.com/\${${expr}}\``;
  return expr;
}

/** The same, from the text of a template literal (`${marker} #${i}`). */
function markerTemplate(f, inner) {
  if (f.type === 'email') return `\`${inner}@example.com\``;
  if (f.type === 'url') return `\`https://example.com/${inner}\``;
  return `\`${inner}\``;
}

/** The builder's value (a fresh one per call where the type allows). */
function bodyValue(c, f) {
  if (f.name === c.markerField) {
    const words = `${c.n.human.charAt(0).toUpperCase()}${c.n.human.slice(1)} `;
    if ((f.type === 'string' || f.type === 'text') && words.length + 14 <= f.max) return `\`${words}\${aMarker()}\``;
    return markerValue(f, 'aMarker()');
  }
  switch (f.type) {
    case 'string':
    case 'text': {
      const text = `${label(f)} `;
      if (text.length + 12 <= f.max && text.length + 12 >= f.min) return `\`${text}\${uniqueSuffix()}\``;
      return `'${'s'.repeat(clamp(8, f.min, f.max))}'`;
    }
    case 'integer':
    case 'number':
      return numberLiteral(numericValue(f));
    case 'boolean':
      return 'true';
    case 'date':
      return "'2026-01-02T03:04:05.000Z'";
    case 'email':
      return '`${uniqueSuffix()}@example.com`';
    case 'url':
      return '`https://example.com/${uniqueSuffix()}`';
    case 'enum':
      return quote(f.values[0]);
    default:
      throw new Error(`no test value for ${f.type}`);
  }
}

/** The body's TypeScript type of a field (dates travel as strings). */
function bodyType(f) {
  if (f.type === 'date') return 'string';
  if (f.type === 'enum') return f.values.map(quote).join(' | ');
  return { integer: 'number', number: 'number', boolean: 'boolean' }[f.type] ?? 'string';
}

/** `doc.x` as the view renders it. */
function viewOfDoc(f, doc) {
  if (f.type === 'date') return f.required ? `${doc}.${f.name}.toISOString()` : `${doc}.${f.name}?.toISOString() ?? null`;
  return f.required ? `${doc}.${f.name}` : `${doc}.${f.name} ?? null`;
}

/** `body.x` as stored (dates become Date objects). */
function storedOfBody(f, body) {
  return f.type === 'date' ? `new Date(${body}.${f.name}!)` : `${body}.${f.name}`;
}

/** Three (or two) values in ascending order, for a sort test; `marker` is in scope. */
function sortValues(c, f) {
  if (f.name === c.markerField) return ['a', 'b', 'c'].map((x) => markerTemplate(f, `\${marker} ${x}`));
  switch (f.type) {
    case 'string':
    case 'text':
      return ["'a'", "'b'", "'c'"];
    case 'email':
      return ["'a@example.com'", "'b@example.com'", "'c@example.com'"];
    case 'url':
      return ["'https://a.example.com/'", "'https://b.example.com/'", "'https://c.example.com/'"];
    case 'integer':
      return ['1', '2', '3'];
    case 'number':
      return ['1.5', '2.5', '3.5'];
    case 'boolean':
      return ['false', 'true'];
    case 'date':
      return ["new Date('2026-01-01T00:00:00.000Z')", "new Date('2026-02-01T00:00:00.000Z')", "new Date('2026-03-01T00:00:00.000Z')"];
    case 'enum':
      return [...f.values].sort().slice(0, 3).map(quote);
    default:
      return [];
  }
}

/**
 * Invalid values of a field: `{ what, value, rule }`, `value` TS source. `forCreate` adds the
 * missing-field case of a required field.
 */
function invalidCases(f, { forCreate }) {
  const cases = [];
  const add = (what, value, rule) => cases.push({ what: `${f.name} ${what}`, value, rule });
  if (forCreate && f.required) add('is missing', 'undefined', 'any.required');
  switch (f.type) {
    case 'string':
      add('is blank', "'   '", 'string.empty');
      if (f.min > 1) add(`has ${f.min - 1} characters`, `'${'x'.repeat(f.min - 1)}'`, 'string.min');
      if (testableLength(f.max + 1))
        add(`has ${numberLiteral(f.max + 1)} characters`, `'x'.repeat(${numberLiteral(f.max + 1)})`, 'string.max');
      add('is an operator object', '{ $ne: 1 }', 'string.base');
      add('is a number', '5', 'string.base');
      add('is null', 'null', 'string.base');
      add('is an array', "['a']", 'string.base');
      break;
    case 'text':
      if (f.min === 1) add('is empty', "''", 'string.empty');
      if (f.min > 1) add(`has ${f.min - 1} characters`, `'${'x'.repeat(f.min - 1)}'`, 'string.min');
      if (testableLength(f.max + 1))
        add(`has ${numberLiteral(f.max + 1)} characters`, `'x'.repeat(${numberLiteral(f.max + 1)})`, 'string.max');
      add('is an operator object', "{ $gt: '' }", 'string.base');
      add('is a number', '1', 'string.base');
      break;
    case 'integer':
      add('is not whole', '1.5', 'number.integer');
      add('is not a number', "'abc'", 'number.base');
      add('is an operator object', '{ $gt: 0 }', 'number.base');
      if (f.min !== undefined) add(`is below ${f.min}`, numberLiteral(f.min - 1), 'number.min');
      if (f.max !== undefined) add(`is above ${f.max}`, numberLiteral(f.max + 1), 'number.max');
      break;
    case 'number':
      add('is not a number', "'abc'", 'number.base');
      add('is an operator object', '{ $gt: 0 }', 'number.base');
      if (f.min !== undefined) add(`is below ${f.min}`, numberLiteral(f.min - 1), 'number.min');
      if (f.max !== undefined) add(`is above ${f.max}`, numberLiteral(f.max + 1), 'number.max');
      break;
    case 'boolean':
      add('is neither true nor false', "'maybe'", 'boolean.base');
      add('is an operator object', '{ $ne: true }', 'boolean.base');
      break;
    case 'date':
      add('is not a date', "'not-a-date'", 'date.format');
      add('is an operator object', "{ $gt: '' }", 'date.base');
      break;
    case 'email':
      add('is not an e-mail address', "'not-an-email'", 'string.email');
      add(`has more than ${f.max} characters`, `\`\${'a'.repeat(${f.max})}@example.com\``, 'string.max');
      add('is an operator object', '{ $ne: 1 }', 'string.base');
      break;
    case 'url':
      add('is not an http(s) URL', "'ftp://example.com/file'", 'string.uriCustomScheme');
      if (testableLength(f.max + 1))
        add(`has more than ${f.max} characters`, `\`https://example.com/\${'x'.repeat(${numberLiteral(f.max)})}\``, 'string.max');
      add('is an operator object', '{ $ne: 1 }', 'string.base');
      break;
    case 'enum':
      add('is not one of the values', quote(`${f.values.join('')}x`.slice(0, 100)), 'any.only');
      add('is an operator object', '{ $ne: 1 }', 'string.base');
      break;
    default:
      break;
  }
  return cases;
}

/** Values at the bounds, which must pass: `{ what, value }`. */
function boundaryCases(f) {
  const cases = [];
  const add = (what, value) => cases.push({ what: `${f.name} ${what}`, value });
  if ((f.type === 'string' || f.type === 'text') && testableLength(f.max)) {
    add(`has ${numberLiteral(f.max)} characters`, `'${f.name.charAt(0)}'.repeat(${numberLiteral(f.max)})`);
  }
  if (f.type === 'text' && f.min === 0) add('is empty', "''");
  if ((f.type === 'string' || f.type === 'text') && f.min > 1) add(`has ${f.min} characters`, `'${f.name.charAt(0)}'.repeat(${f.min})`);
  if (f.type === 'integer' || f.type === 'number') {
    if (f.min !== undefined) add(`is ${f.min} (its minimum)`, numberLiteral(f.min));
    if (f.max !== undefined) add(`is ${f.max} (its maximum)`, numberLiteral(f.max));
  }
  return cases;
}

module.exports = { bodyValue, bodyType, viewOfDoc, storedOfBody, sortValues, invalidCases, boundaryCases, markerValue, markerTemplate };
