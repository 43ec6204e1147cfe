// @ts-check
'use strict';
// services.json, the registry of the stack's processes, read one way for every script: npm start
// and the contract tests (stack.cjs), the generator, the configuration table. (The gateway reads
// it in TypeScript: gateway/src/registry.ts.) Plain JSON, so this works before `npm install`.

const fs = require('node:fs');
const path = require('node:path');

const FILE = 'services.json';
const ROOT_DIR = path.resolve(__dirname, '..', '..');

/**
 * One process of the stack. `gateway` and `services` (the upstream services, started in parallel
 * before the gateway); a generated resource service adds one entry.
 * @typedef {object} ServiceEntry
 * @property {string} name
 * @property {string} dir  the package folder (entry `<dir>/dist/start.js`)
 * @property {number} port  the default port
 * @property {string} portEnv  the variable that overrides its port in `npm start`
 * @property {string} [urlEnv]  the variable through which the gateway learns its address (none for
 *   a service the gateway does not route to, such as a message consumer)
 * @property {{ database?: string }} [owns]  its database (and queues)
 * @property {string[]} secrets  the secrets it may see (every other secret is withheld from it)
 */

/** @typedef {{ gateway: ServiceEntry, services: ServiceEntry[] }} Registry */

/**
 * The registry in `text`; throws naming `file` and what is wrong.
 * @param {string} text @param {string} [file] @returns {Registry}
 */
function parseRegistry(text, file = FILE) {
  let registry;
  try {
    registry = JSON.parse(text);
  } catch {
    throw new Error(`${file} is not valid JSON`);
  }
  if (!registry || !Array.isArray(registry.services) || !registry.gateway) {
    throw new Error(`${file} has no gateway and services: was it reshaped by hand? Restore its usual shape`);
  }
  for (const def of [registry.gateway, ...registry.services]) {
    const ok =
      def &&
      typeof def.name === 'string' &&
      typeof def.dir === 'string' &&
      Number.isInteger(def.port) &&
      typeof def.portEnv === 'string' &&
      Array.isArray(def.secrets);
    if (!ok) throw new Error(`${file}: every entry needs name, dir, port, portEnv and secrets (${JSON.stringify(def)})`);
  }
  return registry;
}

/** The registry at the root of a checkout (this one by default). @param {string} [rootDir] */
function readRegistry(rootDir = ROOT_DIR) {
  const file = path.join(rootDir, FILE);
  return parseRegistry(fs.readFileSync(file, 'utf8'), file);
}

module.exports = { FILE, parseRegistry, readRegistry };
