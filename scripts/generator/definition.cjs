// @ts-check
'use strict';
// The one file of a generated resource that is written rather than copied: its definition,
// src/resource.ts, in the shape of articles' own. tsc checks it like any other source file.

const { TYPES } = require('./fields.cjs');

const quote = (s) => `'${String(s).replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
/** `100000` → `100_000`, as written by hand. */
const numberLiteral = (n) =>
  String(n).replace(/^(-?\d+)/, (int) => (int.replace('-', '').length > 4 ? int.replace(/\B(?=(\d{3})+(?!\d))/g, '_') : int));
const list = (items) => `[${items.map(quote).join(', ')}]`;

/** A field's entry: its type, and only what differs from the type's defaults. */
function fieldEntry(field) {
  const type = TYPES[field.type];
  const parts = [`type: ${quote(field.type)}`];
  if (field.required) parts.push('required: true');
  if (field.values) parts.push(`values: ${list(field.values)}`);
  if (field.min !== undefined && field.min !== (type.min ?? 0)) parts.push(`min: ${numberLiteral(field.min)}`);
  else if (field.min !== undefined && type.bounds === 'value') parts.push(`min: ${numberLiteral(field.min)}`);
  if (field.max !== undefined && field.max !== type.max) parts.push(`max: ${numberLiteral(field.max)}`);
  if (field.filter === false) parts.push('filter: false');
  if (field.index) parts.push('index: true');
  if (field.read) parts.push(`read: ${quote(field.read)}`);
  if (field.write) parts.push(`write: ${quote(field.write)}`);
  return `${field.name}: { ${parts.join(', ')} },`;
}

/**
 * @param {{ names: ReturnType<typeof import('./names.cjs').namesOf>, fields: any[], access: Record<string, string>, rules?: Record<string, string>,
 *           searchable: string[], sortable: string[], defaultSort: string }} spec
 */
function renderDefinition(spec) {
  const n = spec.names;
  const access = Object.entries(spec.access)
    .map(([method, level]) => `${method}: ${quote(level)}`)
    .join(', ');
  return `import { defineResource } from '@restgate/shared/resource';

/**
 * Everything about ${n.humanPlural} that is theirs: fields, listing and access. Schemas, views, indexes
 * and the listing rules follow from it. Written by npm run generate; yours to edit from now on.
 */
export const ${n.camel}Resource = defineResource({
  name: ${quote(n.plural)},
  singular: ${quote(n.human)},
  fields: {
${spec.fields.map((f) => `    ${fieldEntry(f)}`).join('\n')}
  },
  searchable: ${list(spec.searchable)},
  sortable: ${list(spec.sortable)},
  defaultSort: ${quote(spec.defaultSort)},
  access: { ${access} },${
    Object.keys(spec.rules ?? {}).length > 0
      ? `
  rules: { ${Object.entries(spec.rules ?? {})
    .map(([action, rule]) => `${action}: ${quote(rule)}`)
    .join(', ')} },`
      : ''
  }
});
`;
}

module.exports = { renderDefinition };
