// @ts-check
'use strict';
// Turns the command line of `generate resource` into a checked resource spec. Everything that can
// be wrong with the request is found here, before anything is rendered or written.

const { GeneratorError } = require('./errors.cjs');
const { parseFields, TYPES, JS_RESERVED } = require('./fields.cjs');
const { namesOf } = require('./names.cjs');

const METHODS = ['create', 'list', 'read', 'update', 'delete'];
const LEVELS = ['public', 'user', 'owner', 'admin', 'master'];
/** The levels each method may have (ResourceAccess in @restgate/shared/resource). */
const ALLOWED = {
  create: ['user', 'admin'],
  list: ['public', 'user', 'admin', 'master'],
  read: ['public', 'user', 'owner', 'admin', 'master'],
  update: ['user', 'owner', 'admin'],
  delete: ['user', 'owner', 'admin'],
};
/** The articles service's levels: what a resource gets for a method `--access` leaves out. */
const DEFAULT_ACCESS = { create: 'user', list: 'public', read: 'public', update: 'owner', delete: 'owner' };

/** Paths and folders that belong to the stack itself. */
const RESERVED_NAMES = [
  'users',
  'auth',
  'gateway',
  'shared',
  'health',
  'ready',
  'docs',
  'openapi.json',
  'metrics',
  'identity',
  'mailer',
  'password-resets',
  'services',
  'scripts',
  'test',
  'tests',
  'bench',
  'node_modules',
  'dist',
];

/** Words of articles' code that the copy would turn into clashes (articleResource → <name>Resource …). */
const TEMPLATE_NAMES = new Set(
  (
    'a admin api app asStored bad body call changes config count created db deps doc docs error errors expected field fields form ' +
    'headers id ids input item items joi json key level limit links list logger marker match missing mongo name next now other ' +
    'owner page params path principal problem query reply request res resource rest result route routes rows schema schemas ' +
    'service shown sort stack start stop stored svc tags test token update updated url user value values view'
  ).split(' '),
);

const SEARCHABLE_TYPES = Object.keys(TYPES).filter((t) => TYPES[t].searchable);
/** The service's tests write a unique marker of up to this many characters into one searchable text field. */
const MARKER_ROOM = 40;

function parseAccess(text) {
  const access = { ...DEFAULT_ACCESS };
  if (text === undefined) return access;
  if (typeof text !== 'string' || !text.trim()) {
    throw new GeneratorError('--access needs a value, e.g. --access "create=user,list=public,read=public,update=owner,delete=admin"');
  }
  const seen = new Set();
  for (const entry of text.split(',').map((s) => s.trim())) {
    const match = /^([a-z]+)\s*=\s*([a-z]+)$/.exec(entry);
    if (!match) throw new GeneratorError(`invalid access entry "${entry}": expected method=level, e.g. update=owner`);
    const [, method, level] = match;
    if (!METHODS.includes(method)) throw new GeneratorError(`unknown method "${method}" in --access (known: ${METHODS.join(', ')})`);
    if (!LEVELS.includes(level)) throw new GeneratorError(`unknown access level "${level}" for ${method} (known: ${LEVELS.join(', ')})`);
    if (seen.has(method)) throw new GeneratorError(`--access names ${method} twice`);
    seen.add(method);
    access[method] = level;
  }
  for (const method of METHODS) {
    if (!ALLOWED[method].includes(access[method])) {
      const why = method === 'create' ? ' (the creator becomes the owner, so it must be a user)' : '';
      throw new GeneratorError(`${method}=${access[method]} is not allowed${why}: use one of ${ALLOWED[method].join(', ')}`);
    }
  }
  return access;
}

function parseList(text, option) {
  if (text === undefined) return undefined;
  const items = String(text)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (items.length === 0) throw new GeneratorError(`${option} needs a comma list of field names`);
  const dup = items.find((item, i) => items.indexOf(item) !== i);
  if (dup) throw new GeneratorError(`${option} names "${dup}" twice`);
  return items;
}

/** The resource name: its spelling, and not a name the stack or the generated code already uses. */
function checkName(name, singular) {
  if (typeof name !== 'string' || !name)
    throw new GeneratorError('name the resource, e.g. npm run generate -- resource books --fields "title:string:required"');
  if (RESERVED_NAMES.includes(name))
    throw new GeneratorError(`"${name}" is a reserved name (the stack uses it: ${RESERVED_NAMES.join(', ')})`);
  const pattern = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;
  if (!pattern.test(name) || name.length > 30) {
    throw new GeneratorError(
      `invalid resource name "${name}": use a plural in lower-case kebab-case (letters, digits, single dashes; at most 30), e.g. books or blog-posts`,
    );
  }
  if (singular !== undefined && (!pattern.test(singular) || singular.length > 30)) {
    throw new GeneratorError(`invalid --singular "${singular}": lower-case kebab-case, e.g. person`);
  }
  const names = namesOf(name, singular);
  for (const word of [names.camel, names.camelPlural]) {
    if (JS_RESERVED.has(word) || TEMPLATE_NAMES.has(word)) {
      throw new GeneratorError(
        `"${name}" cannot be a resource name: "${word}" would clash with a name in the generated code; choose another`,
      );
    }
  }
  return names;
}

/**
 * @param {{ name?: string, fields?: string, access?: string, rules?: string[], fieldRules?: string[], search?: string, sort?: string, defaultSort?: string, singular?: string, port?: string }} options  the command line
 * @returns the resource definition's content, and the port
 */
function buildSpec(options) {
  const names = checkName(options.name, options.singular);
  const fields = parseFields(options.fields);
  const byName = new Map(fields.map((f) => [f.name, f]));
  const access = parseAccess(options.access);
  const rules = parseRules(options.rules);
  parseFieldRules(options.fieldRules, byName);
  // A field the caller may not read is neither searched nor sorted on: its matches or order would show it.
  const readRuled = new Set(fields.filter((f) => f.read).map((f) => f.name));

  const searchable =
    parseList(options.search, '--search') ??
    fields.filter((f) => ['string', 'text', 'email', 'url'].includes(f.type) && !readRuled.has(f.name)).map((f) => f.name);
  for (const name of searchable) {
    const field = byName.get(name);
    if (!field) throw new GeneratorError(`--search names "${name}", which is not a field`);
    if (!SEARCHABLE_TYPES.includes(field.type)) {
      throw new GeneratorError(
        `--search: "${name}" is of type ${field.type}; q searches text, so use fields of type ${SEARCHABLE_TYPES.join(', ')}`,
      );
    }
  }
  if (searchable.length === 0) {
    throw new GeneratorError(`nothing for q to search: add a field of type string, text, email or url, or name one with --search`);
  }
  // The service's tests find their own records by a unique marker searched with q.
  const markerField = searchable
    .map((name) => byName.get(name))
    .find((f) => f !== undefined && ['string', 'text'].includes(f.type) && (f.max ?? 0) >= MARKER_ROOM && (f.min ?? 0) <= 14);
  if (!markerField) {
    throw new GeneratorError(
      `--search needs a string or text field that takes ${MARKER_ROOM} characters (max=${MARKER_ROOM} or more, min=14 or less): the service's tests search their records by a unique word`,
    );
  }

  // createdAt and updatedAt are always sortable: the listing's default order and its tests use them.
  const given = parseList(options.sort, '--sort');
  const sortable = [
    'createdAt',
    'updatedAt',
    ...(given ?? fields.filter((f) => TYPES[f.type].sortable && !readRuled.has(f.name)).map((f) => f.name)),
  ].filter((name, i, all) => all.indexOf(name) === i);
  for (const name of sortable) {
    if (!byName.has(name) && name !== 'createdAt' && name !== 'updatedAt') {
      throw new GeneratorError(`--sort names "${name}", which is not a field (nor createdAt, updatedAt)`);
    }
  }
  const defaultSort = options.defaultSort ?? '-createdAt';
  const defaultSortField = defaultSort.replace(/^-/, '');
  if (typeof defaultSort !== 'string' || !sortable.includes(defaultSortField)) {
    throw new GeneratorError(
      `the default sort "${defaultSort}" must be a sortable field (${sortable.join(', ')}), with - for descending; set --default-sort or --sort`,
    );
  }

  let port;
  if (options.port !== undefined) {
    port = Number(options.port);
    if (!/^\d+$/.test(String(options.port)) || port < 1024 || port > 65535)
      throw new GeneratorError(`--port ${options.port} is not a port number from 1024 to 65535`);
  }

  const spec = { names, fields, access, rules, searchable, sortable, defaultSort, port };
  checkRules(spec);
  return spec;
}

/** `--rule action=expression`, at most one per action. */
function parseRules(given) {
  /** @type {Record<string, string>} */
  const rules = {};
  for (const entry of given ?? []) {
    const match = /^\s*([a-z]+)\s*=(.+)$/s.exec(entry);
    if (!match) throw new GeneratorError(`invalid --rule "${entry}": expected action=expression, e.g. --rule 'read=status = "published"'`);
    const [, action = '', expression = ''] = match;
    if (!METHODS.includes(action)) throw new GeneratorError(`unknown action "${action}" in --rule (known: ${METHODS.join(', ')})`);
    if (action in rules) throw new GeneratorError(`--rule names ${action} twice`);
    rules[action] = expression.trim();
  }
  return rules;
}

/** `--field-rule field:read=expression` or `field:write=expression`, set on the field. */
function parseFieldRules(given, byName) {
  for (const entry of given ?? []) {
    const match = /^\s*([A-Za-z][A-Za-z0-9]*):(read|write)=(.+)$/s.exec(entry);
    if (!match) throw new GeneratorError(`invalid --field-rule "${entry}": expected field:read=expression or field:write=expression`);
    const [, name = '', kindText, expression = ''] = match;
    const kind = /** @type {"read" | "write"} */ (kindText);
    const field = byName.get(name);
    if (!field) throw new GeneratorError(`--field-rule names "${name}", which is not a field`);
    if (field[kind] !== undefined) throw new GeneratorError(`--field-rule gives ${name} two ${kind} rules`);
    field[kind] = expression.trim();
  }
}

/**
 * Compiles the rules as the service will at its start (the shared library's compiler, built):
 * a rule that would stop the service is refused here, with the same message, before anything is written.
 */
function checkRules(spec) {
  const ruled = Object.keys(spec.rules).length > 0 || spec.fields.some((f) => f.read || f.write);
  if (!ruled) return;
  let shared;
  try {
    shared = require('../../shared/dist/resource/index.js');
  } catch {
    throw new GeneratorError('rules are checked with the built shared library, which is not there: run npx tsc -b (or npm start) first');
  }
  const definition = {
    name: spec.names.plural,
    singular: spec.names.human,
    fields: Object.fromEntries(
      spec.fields.map((f) => [f.name, { type: f.type, ...(f.read ? { read: f.read } : {}), ...(f.write ? { write: f.write } : {}) }]),
    ),
    searchable: spec.searchable,
    sortable: spec.sortable,
    defaultSort: spec.defaultSort,
    access: spec.access,
    rules: spec.rules,
  };
  try {
    shared.compileResourceRules(definition);
  } catch (err) {
    throw new GeneratorError(/** @type {Error} */ (err).message);
  }
}

module.exports = { buildSpec, checkName, parseAccess, METHODS, LEVELS, ALLOWED, DEFAULT_ACCESS, RESERVED_NAMES };
