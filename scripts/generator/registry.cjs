// @ts-check
'use strict';
// services.json, the registry of the stack's processes: what the generator reads (names and
// ports taken) and the entry it adds or removes, in the layout Prettier gives the file. Read
// through scripts/lib/registry.cjs, as by every script. Plain JSON, so this works before npm install.

const { GeneratorError } = require('./errors.cjs');
const lib = require('../lib/registry.cjs');

const { FILE } = lib;

/**
 * @typedef {import('../lib/registry.cjs').ServiceEntry} ServiceEntry
 * @typedef {import('../lib/registry.cjs').Registry} Registry
 */

/** The registry in `text`, or a GeneratorError saying what is wrong. @param {string} text @returns {Registry} */
function parseRegistry(text) {
  try {
    return lib.parseRegistry(text);
  } catch (err) {
    throw new GeneratorError(/** @type {Error} */ (err).message);
  }
}

/** @param {Registry} registry */
function usedPorts(registry) {
  return new Set([registry.gateway.port, ...registry.services.map((s) => s.port)]);
}

/** @param {Registry} registry */
function nextFreePort(registry) {
  return Math.max(...usedPorts(registry)) + 1;
}

/** The entry of a generated resource: it serves through the gateway and owns a database of its name. */
function entryFor(names, port) {
  return {
    name: names.plural,
    dir: `services/${names.plural}`,
    port,
    portEnv: `${names.upper}_PORT`,
    urlEnv: `${names.upper}_URL`,
    owns: { database: names.plural },
    secrets: ['PRINCIPAL_SECRET', 'AMQP_URL'],
  };
}

/** JSON as Prettier writes this file: one key per line down to the entries, short values inline. */
function format(value, indent = '') {
  const inner = `${indent}  `;
  if (Array.isArray(value) && value.some((v) => v && typeof v === 'object')) {
    return `[\n${value.map((v) => `${inner}${format(v, inner)}`).join(',\n')}\n${indent}]`;
  }
  if (value && typeof value === 'object' && !Array.isArray(value) && indent.length < 6) {
    const entries = Object.entries(value).map(([k, v]) => `${inner}${JSON.stringify(k)}: ${format(v, inner)}`);
    return `{\n${entries.join(',\n')}\n${indent}}`;
  }
  return inline(value);
}

/** @param {unknown} value @returns {string} */
function inline(value) {
  if (Array.isArray(value)) return `[${value.map(inline).join(', ')}]`;
  if (value && typeof value === 'object') {
    return `{ ${Object.entries(value)
      .map(([k, v]) => `${JSON.stringify(k)}: ${inline(v)}`)
      .join(', ')} }`;
  }
  return JSON.stringify(value);
}

/** @param {Registry} registry */
const serialize = (registry) => `${format(registry)}\n`;

module.exports = { FILE, parseRegistry, usedPorts, nextFreePort, entryFor, serialize };
