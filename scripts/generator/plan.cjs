'use strict';
// From a request to a plan: the files to create, the shared files with their new text, the links.
// Everything is checked and rendered in memory; nothing here writes.

const fs = require('node:fs');
const path = require('node:path');
const { readmeWithConfigTable } = require('./config-table.cjs');
const edits = require('./edits.cjs');
const { GeneratorError } = require('./errors.cjs');
const { formatFiles } = require('./format.cjs');
const repo = require('./repo.cjs');
const { buildSpec, RESERVED_NAMES } = require('./spec.cjs');
const { renderService } = require('./templates/index.cjs');
const { contextOf } = require('./templates/context.cjs');

const { FILES } = repo;

/** Where a resource shows up outside its folder; used to refuse a name twice and to remove one. */
function tracesOf(root, plural, upper) {
  const traces = [];
  const text = (key) => repo.read(root, FILES[key]) ?? '';
  if (fs.existsSync(path.join(root, 'services', plural))) traces.push(`services/${plural}/`);
  if (repo.upstreamKeys(text('policy')).includes(plural)) traces.push(`${FILES.policy} (UPSTREAMS)`);
  const routed = repo.routedSegments(text('policy')).get(plural);
  if (routed) traces.push(`${FILES.policy} (routes /${plural} to ${routed})`);
  if (new RegExp(`^ {2}${upper}_URL:`, 'm').test(text('gatewayConfig'))) traces.push(`${FILES.gatewayConfig} (${upper}_URL)`);
  if (new RegExp(`name: '${plural}'`).test(text('stack'))) traces.push(`${FILES.stack} (SERVICES)`);
  if (new RegExp(`^ {2}${plural.replace(/[.]/g, '\\.')}:\\s*$`, 'm').test(text('compose'))) traces.push(FILES.compose);
  if (text('tsconfig').includes(`"services/${plural}"`)) traces.push(FILES.tsconfig);
  if (text('lock').includes(`"services/${plural}"`)) traces.push(FILES.lock);
  return traces;
}

function upperOf(plural) {
  return plural.replace(/-/g, '_').toUpperCase();
}

/**
 * README.md with the configuration table redone for the new set of services; a failure to read the
 * schemas is a warning, not a stop (the rest of the plan is right, and the table can be redone).
 */
function readmeEdit(root, change, warnings) {
  try {
    const after = readmeWithConfigTable(root, change);
    const before = repo.read(root, 'README.md');
    return after === null || after === before ? null : { path: 'README.md', content: after, edit: true };
  } catch (err) {
    warnings.push(
      `README.md's configuration table was not updated (${err.message.split('\n')[0]}); after \`npx tsc -b\`, run node scripts/config-table.cjs --write`,
    );
    return null;
  }
}

/** A shared file's new text; a missing optional file is skipped, a missing required one is an error. */
function editOf(root, key, change, { optional = false } = {}) {
  const before = repo.read(root, FILES[key]);
  if (before === null) {
    if (optional) return null;
    throw new GeneratorError(`${FILES[key]} is missing; run the generator from the repository root of restgate`);
  }
  const after = change(before, FILES[key]);
  return after === before ? null : { path: FILES[key], content: after, edit: true };
}

async function planResource(root, options) {
  const spec = buildSpec(options);
  const n = spec.names;
  const traces = tracesOf(root, n.plural, n.upper);
  if (traces.length > 0) {
    throw new GeneratorError(
      `a resource named "${n.plural}" already exists (${traces.join(', ')}): choose another name, or remove it first with npm run generate -- remove ${n.plural}`,
    );
  }
  const used = repo.usedPorts(root);
  if (spec.port !== undefined && used.has(spec.port)) throw new GeneratorError(`port ${spec.port} is already used by the stack`);
  spec.port ??= repo.nextFreePort(root);
  spec.versions = repo.dependencyVersions(root);

  const c = contextOf(spec);
  const files = renderService(c);
  await formatFiles(root, files);
  const pkg = JSON.parse(files[`services/${n.plural}/package.json`]);

  const shared = [
    editOf(root, 'policy', (text, file) => edits.addToPolicy(text, c, file)),
    editOf(root, 'gatewayConfig', (text, file) => edits.addToGatewayConfig(text, c, file)),
    editOf(root, 'stack', (text, file) => edits.addToStack(text, c, file)),
    editOf(root, 'compose', (text, file) => edits.addToCompose(text, c, file)),
    editOf(root, 'tsconfig', (text, file) => edits.addToTsconfig(text, c, file)),
    editOf(root, 'lock', (text, file) => edits.addToLock(text, c, file, pkg)),
    editOf(root, 'envExample', (text) => edits.addToEnvExample(text, c), { optional: true }),
    // npm's record of what is installed: with it (and the link below) the install stays current.
    editOf(root, 'hiddenLock', (text, file) => edits.addToLock(text, c, file, pkg), { optional: true }),
  ].filter(Boolean);

  const warnings = [];
  const configSource = files[`services/${n.plural}/src/config.ts`];
  const gatewayConfig = shared.find((w) => w.path === FILES.gatewayConfig).content;
  const readme = readmeEdit(
    root,
    {
      add: `services/${n.plural}`,
      sources: { [FILES.gatewayConfig]: gatewayConfig, [`services/${n.plural}/src/config.ts`]: configSource },
    },
    warnings,
  );

  const linkDir = path.join(root, 'node_modules', '@restgate');
  const links = fs.existsSync(linkDir) ? [{ path: `node_modules/@restgate/${n.plural}`, target: `../../services/${n.plural}` }] : [];
  return {
    kind: 'resource',
    spec,
    warnings,
    writes: [...Object.entries(files).map(([p, content]) => ({ path: p, content })), ...shared, ...(readme ? [readme] : [])],
    links,
    unlinks: [],
    removeDirs: [],
  };
}

/** The folders that are not generated resources, whatever they contain. */
const PROTECTED = new Set([...RESERVED_NAMES, 'identity', 'mailer', 'gateway', 'shared']);

async function planRemove(root, name) {
  if (typeof name !== 'string' || !/^[a-z][a-z0-9]*(-[a-z0-9]+)*$/.test(name)) {
    throw new GeneratorError(`invalid resource name "${name ?? ''}": name the resource to remove, e.g. npm run generate -- remove books`);
  }
  if (PROTECTED.has(name))
    throw new GeneratorError(`"${name}" is part of the stack, not a generated resource; it cannot be removed this way`);
  const upper = upperOf(name);
  const dir = path.join(root, 'services', name);
  if (fs.existsSync(dir) && !fs.existsSync(path.join(dir, 'src', 'domain', 'resource.ts'))) {
    throw new GeneratorError(`services/${name} is not a generated resource (it has no src/domain/resource.ts); remove it by hand`);
  }
  const traces = tracesOf(root, name, upper);
  if (traces.length === 0) throw new GeneratorError(`nothing to remove: no resource named "${name}"`);

  const names = { plural: name, upper, upstreamKey: name.includes('-') ? `'${name}'` : name };
  const shared = [
    editOf(root, 'policy', (text) => edits.removeFromPolicy(text, names)),
    editOf(root, 'gatewayConfig', (text) => edits.removeFromGatewayConfig(text, names)),
    editOf(root, 'stack', (text, file) => edits.removeFromStack(text, names, file)),
    editOf(root, 'compose', (text, file) => edits.removeFromCompose(text, names, file)),
    editOf(root, 'tsconfig', (text, file) => edits.removeFromTsconfig(text, names, file)),
    editOf(root, 'lock', (text, file) => edits.removeFromLock(text, names, file)),
    editOf(root, 'envExample', (text) => edits.removeFromEnvExample(text, names), { optional: true }),
    editOf(root, 'hiddenLock', (text, file) => edits.removeFromLock(text, names, file), { optional: true }),
  ].filter(Boolean);
  const warnings = [];
  const gatewayConfig = shared.find((w) => w.path === FILES.gatewayConfig)?.content ?? repo.read(root, FILES.gatewayConfig);
  const readme = readmeEdit(root, { remove: `services/${name}`, sources: { [FILES.gatewayConfig]: gatewayConfig } }, warnings);
  if (readme) shared.push(readme);
  const link = path.join(root, 'node_modules', '@restgate', name);
  let isLink = false;
  try {
    isLink = fs.lstatSync(link).isSymbolicLink();
  } catch {
    // no link
  }
  return {
    kind: 'remove',
    name,
    warnings,
    writes: shared,
    links: [],
    unlinks: isLink ? [`node_modules/@restgate/${name}`] : [],
    removeDirs: fs.existsSync(dir) ? [`services/${name}`] : [],
  };
}

module.exports = { planResource, planRemove, tracesOf };
