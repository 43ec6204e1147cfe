// @ts-check
'use strict';
// From a request to a plan: the files to create (services/articles copied with its names
// changed, and its definition written from the options) and the new text of the four shared files
// (services.json, docker-compose.yml, tsconfig.json, package-lock.json). Nothing here writes.

const fs = require('node:fs');
const path = require('node:path');
const { renderDefinition } = require('./definition.cjs');
const edits = require('./edits.cjs');
const { GeneratorError } = require('./errors.cjs');
const { namesOf } = require('./names.cjs');
const registryFile = require('./registry.cjs');
const { renameInSource, renamePath } = require('./rename.cjs');
const { buildSpec, RESERVED_NAMES } = require('./spec.cjs');

/** The service every resource is copied from, and what of it is not copied. */
const TEMPLATE = 'articles';
const NOT_COPIED = new Set(['node_modules', 'dist', 'coverage']);
/** The file the options rewrite; the rest of the copy only has its names changed. */
const DEFINITION = 'src/resource.ts';
const FILES = { compose: 'docker-compose.yml', stack: 'deploy/swarm/stack.yml', tsconfig: 'tsconfig.json', lock: 'package-lock.json' };
/** npm's record of what is installed: kept in step when present, so the install stays current. */
const HIDDEN_LOCK = 'node_modules/.package-lock.json';

/** @param {string} root @param {string} rel */
function read(root, rel) {
  try {
    return fs.readFileSync(path.join(root, rel), 'utf8');
  } catch (err) {
    if (/** @type {NodeJS.ErrnoException} */ (err).code === 'ENOENT') return null;
    throw err;
  }
}

/** @param {string} root @param {string} rel */
function required(root, rel) {
  const text = read(root, rel);
  if (text === null) throw new GeneratorError(`${rel} is missing; run the generator from the repository root of restgate`);
  return text;
}

/** Every file of the template service, relative to its folder. */
function templateFiles(dir, rel = '') {
  /** @type {string[]} */
  const files = [];
  for (const entry of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
    if (NOT_COPIED.has(entry.name) || entry.name.endsWith('.tsbuildinfo')) continue;
    const child = rel ? `${rel}/${entry.name}` : entry.name;
    if (entry.isDirectory()) files.push(...templateFiles(dir, child));
    else if (entry.isFile()) files.push(child);
  }
  return files;
}

/** Where a resource shows up; used to refuse a name twice and to remove one. */
function tracesOf(root, plural) {
  const traces = [];
  if (fs.existsSync(path.join(root, 'services', plural))) traces.push(`services/${plural}/`);
  const registry = registryFile.parseRegistry(required(root, registryFile.FILE));
  if (registry.services.some((s) => s.name === plural)) traces.push(registryFile.FILE);
  if (new RegExp(`^ {2}${plural}:\\s*$`, 'm').test(read(root, FILES.compose) ?? '')) traces.push(FILES.compose);
  if ((read(root, FILES.tsconfig) ?? '').includes(`"services/${plural}"`)) traces.push(FILES.tsconfig);
  if ((read(root, FILES.lock) ?? '').includes(`"services/${plural}"`)) traces.push(FILES.lock);
  return traces;
}

/** A shared file's new text, or nothing when it does not change. */
function editOf(root, rel, change, { optional = false } = {}) {
  const before = optional ? read(root, rel) : required(root, rel);
  if (before === null) return null;
  const after = change(before, rel);
  return after === before ? null : { path: rel, content: after, edit: true };
}

/**
 * The swarm stack file, made again from the compose file as edited (scripts/fleet/stack-file.cjs): a
 * resource joins the fleet, or leaves it, with its compose service. Making it needs the `yaml`
 * package: in a clone before `npm install` the stack file is left as it is, and `npm run fleet`
 * (which makes it again before deploying) or `npm run fleet -- stack` brings it in step.
 * @param {Array<{ path: string, content: string }>} writes
 */
function stackFollowing(writes) {
  const compose = writes.find((w) => w.path === FILES.compose);
  if (!compose) return [];
  try {
    require.resolve('yaml');
  } catch {
    return [];
  }
  const { readCompose, renderStack } = require('../fleet/stack-file.cjs');
  return [{ path: FILES.stack, content: renderStack(readCompose(compose.content)), edit: true }];
}

/**
 * @param {string} root
 * @param {Parameters<typeof buildSpec>[0]} options
 */
function planResource(root, options) {
  const spec = buildSpec(options);
  const n = spec.names;
  const traces = tracesOf(root, n.plural);
  if (traces.length > 0) {
    throw new GeneratorError(
      `a resource named "${n.plural}" already exists (${traces.join(', ')}): choose another name, or remove it first with npm run generate -- remove ${n.plural}`,
    );
  }
  const registry = registryFile.parseRegistry(required(root, registryFile.FILE));
  if (spec.port !== undefined && registryFile.usedPorts(registry).has(spec.port)) {
    throw new GeneratorError(`port ${spec.port} is already used by the stack (${registryFile.FILE})`);
  }
  const port = spec.port ?? registryFile.nextFreePort(registry);
  const template = registry.services.find((s) => s.name === TEMPLATE);
  const templateDir = path.join(root, 'services', TEMPLATE);
  if (!template || !fs.existsSync(path.join(templateDir, DEFINITION))) {
    throw new GeneratorError(`services/${TEMPLATE} (with ${DEFINITION}) is the template of every resource, and it is missing`);
  }

  /** @type {Array<{ path: string, content: string, edit?: boolean }>} */
  const files = [];
  for (const rel of templateFiles(templateDir)) {
    const target = `services/${n.plural}/${renamePath(rel, n)}`;
    if (rel === DEFINITION) {
      files.push({ path: target, content: renderDefinition(spec) });
      continue;
    }
    let content = renameInSource(fs.readFileSync(path.join(templateDir, rel), 'utf8'), n);
    // The port is a default in the config schema (and only there).
    if (rel === 'src/config.ts') content = content.replace(`.default(${template.port})`, `.default(${port})`);
    if (rel === 'package.json') {
      const pkg = JSON.parse(content);
      pkg.description = `${n.pascalPlural}: a resource service generated from ${TEMPLATE} (npm run generate -- resource ${n.plural}).`;
      content = `${JSON.stringify(pkg, null, 2)}\n`;
    }
    files.push({ path: target, content });
  }
  const pkg = JSON.parse(files.find((f) => f.path === `services/${n.plural}/package.json`)?.content ?? '{}');
  const c = { names: n, port };
  const shared = [
    editOf(root, registryFile.FILE, (text) => {
      const next = registryFile.parseRegistry(text);
      next.services.push(registryFile.entryFor(n, port));
      return registryFile.serialize(next);
    }),
    editOf(root, FILES.compose, (text, file) => edits.addToCompose(text, c, file)),
    editOf(root, FILES.tsconfig, (text, file) => edits.addToTsconfig(text, c, file)),
    editOf(root, FILES.lock, (text, file) => edits.addToLock(text, c, file, pkg)),
    editOf(root, HIDDEN_LOCK, (text, file) => edits.addToLock(text, c, file, pkg), { optional: true }),
  ].filter((w) => w !== null);
  shared.push(...stackFollowing(shared));
  const links = fs.existsSync(path.join(root, 'node_modules', '@restgate'))
    ? [{ path: `node_modules/@restgate/${n.plural}`, target: `../../services/${n.plural}` }]
    : [];
  return { kind: 'resource', spec: { ...spec, port }, warnings: [], writes: [...files, ...shared], links, unlinks: [], removeDirs: [] };
}

/** The folders that are not generated resources, whatever they contain. */
const PROTECTED = new Set([...RESERVED_NAMES, TEMPLATE, 'identity', 'mailer', 'gateway', 'shared']);

/** @param {string} root @param {string | undefined} name */
function planRemove(root, name) {
  if (typeof name !== 'string' || !/^[a-z][a-z0-9]*(-[a-z0-9]+)*$/.test(name)) {
    throw new GeneratorError(`invalid resource name "${name ?? ''}": name the resource to remove, e.g. npm run generate -- remove books`);
  }
  if (PROTECTED.has(name))
    throw new GeneratorError(`"${name}" is part of the stack, not a generated resource; it cannot be removed this way`);
  const dir = path.join(root, 'services', name);
  if (fs.existsSync(dir) && !fs.existsSync(path.join(dir, DEFINITION))) {
    throw new GeneratorError(`services/${name} is not a generated resource (it has no ${DEFINITION}); remove it by hand`);
  }
  if (tracesOf(root, name).length === 0) throw new GeneratorError(`nothing to remove: no resource named "${name}"`);

  const upper = name.replace(/-/g, '_').toUpperCase();
  const writes = [
    editOf(root, registryFile.FILE, (text) => {
      const next = registryFile.parseRegistry(text);
      next.services = next.services.filter((s) => s.name !== name);
      return registryFile.serialize(next);
    }),
    editOf(root, FILES.compose, (text, file) => edits.removeFromCompose(text, { plural: name, upper }, file)),
    editOf(root, FILES.tsconfig, (text, file) => edits.removeFromTsconfig(text, { plural: name }, file)),
    editOf(root, FILES.lock, (text, file) => edits.removeFromLock(text, { plural: name }, file)),
    editOf(root, HIDDEN_LOCK, (text, file) => edits.removeFromLock(text, { plural: name }, file), { optional: true }),
  ].filter((w) => w !== null);
  writes.push(...stackFollowing(writes));
  let isLink = false;
  try {
    isLink = fs.lstatSync(path.join(root, 'node_modules', '@restgate', name)).isSymbolicLink();
  } catch {
    // no link
  }
  return {
    kind: 'remove',
    name,
    warnings: [],
    writes,
    links: [],
    unlinks: isLink ? [`node_modules/@restgate/${name}`] : [],
    removeDirs: fs.existsSync(dir) ? [`services/${name}`] : [],
  };
}

module.exports = { planResource, planRemove, tracesOf, namesOf };
