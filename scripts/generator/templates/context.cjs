'use strict';
// What every template derives from the spec: which methods exist, the route level of each, the
// API fields, and small text helpers.

const { quote } = require('../fields.cjs');

/** The route level the gateway and the service enforce; `owner` is `user` plus the domain's check. */
const routeLevelOf = (level) => (level === 'owner' ? 'user' : level);

function contextOf(spec) {
  const has = (method) => spec.access[method] !== 'none';
  const level = (method) => spec.access[method];
  const apiFields = [...spec.fields.map((f) => f.name), ...(spec.owner ? ['user'] : []), 'createdAt', 'updatedAt'];
  const optionalFields = spec.fields.filter((f) => !f.required);
  /** A route names one record by id: read, update or delete. */
  const byId = has('read') || has('update') || has('delete');
  /** A use case loads one record first (get-<name>.ts, findById): read, or an owner's update or delete. */
  const loads = has('read') || spec.access.update === 'owner' || spec.access.delete === 'owner';
  return {
    ...spec,
    n: spec.names,
    has,
    level,
    routeLevel: (method) => routeLevelOf(spec.access[method]),
    apiFields,
    optionalFields,
    byId,
    loads,
    fieldNames: spec.fields.map((f) => f.name),
    marker: spec.fields.find((f) => f.name === spec.markerField),
  };
}

/** `'a' | 'b'` */
const union = (names) => names.map(quote).join(' | ');
/** `'a', 'b'` */
const list = (names) => names.map(quote).join(', ');
/** Lines; a part that is false, null or undefined (a condition not met) is left out, '' is a blank line. */
const lines = (...parts) => parts.filter((p) => p !== null && p !== undefined && p !== false).join('\n');

/** Named imports as in the hand-written code: values sorted, then types. */
function namedImports(values, types = []) {
  const sort = (a, b) => a.localeCompare(b, 'en', { sensitivity: 'base' }) || a.localeCompare(b);
  return [...[...new Set(values)].sort(sort), ...[...new Set(types)].sort(sort).map((t) => `type ${t}`)].join(', ');
}

module.exports = { contextOf, routeLevelOf, union, list, lines, namedImports, quote };
