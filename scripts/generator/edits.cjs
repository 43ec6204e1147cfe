// @ts-check
'use strict';
// The edits a resource makes to the files it shares with the rest of the stack (compose, the
// TypeScript project references, npm's lock), and their undoing.
// Each is a pure function of the file's text; an anchor it cannot find is an error, so a file
// that was reshaped by hand stops the command before anything is written.

const { GeneratorError } = require('./errors.cjs');

function anchorError(file, what) {
  return new GeneratorError(`cannot find ${what} in ${file}; was it reshaped by hand? Edit it yourself or restore its usual shape`);
}

// -----------------------------------------------------------------------------------------------
// docker-compose.yml: the service, the gateway's URL and start order

/** @typedef {{ name: string, start: number, end: number }} ComposeBlock */

/** The services' blocks: name → [first line, last non-blank line] (line indexes). @returns {ComposeBlock[]} */
function composeBlocks(lines, file) {
  const top = lines.findIndex((l) => /^services:\s*$/.test(l));
  if (top < 0) throw anchorError(file, 'the services: section');
  let end = lines.findIndex((l, i) => i > top && /^\S/.test(l) && !l.startsWith('#'));
  if (end < 0) end = lines.length;
  /** @type {Array<{ name: string, start: number, end: number }>} */
  const blocks = [];
  for (let i = top + 1; i < end; i++) {
    const m = /^ {2}([A-Za-z0-9_.-]+):\s*$/.exec(lines[i]);
    if (m) blocks.push({ name: m[1], start: i, end: i });
  }
  blocks.forEach((b, k) => {
    let last = (k + 1 < blocks.length ? blocks[k + 1].start : end) - 1;
    while (last > b.start && (/^\s*$/.test(lines[last]) || /^ {0,2}#/.test(lines[last]))) last--;
    b.end = last;
  });
  return blocks;
}

/** Inserts `line` after the last line of `key:`'s mapping inside a block (or `match`es in it). */
function insertIntoMapping(lines, block, key, line, file, prefer) {
  const at = lines.findIndex((l, i) => i > block.start && i <= block.end && l === `    ${key}:`);
  if (at < 0) return false;
  let last = at;
  let preferred = -1;
  for (let i = at + 1; i <= block.end && (/^ {6}/.test(lines[i]) || /^\s*$/.test(lines[i])); i++) {
    if (/^ {6}/.test(lines[i])) last = i;
    if (prefer && prefer.test(lines[i])) preferred = i;
  }
  lines.splice((preferred >= 0 ? preferred : last) + 1, 0, line);
  return true;
}

function addToCompose(text, c, file) {
  const n = c.names;
  const lines = text.split('\n');
  const blocks = composeBlocks(lines, file);
  const gateway = blocks.find((b) => b.name === 'gateway');
  if (!gateway) throw anchorError(file, 'the gateway service');
  const built = blocks.filter((b) => lines.slice(b.start, b.end + 1).some((l) => /^ {4}build:/.test(l)));
  const after = built[built.length - 1];
  const block = [
    '',
    `  ${n.plural}:`,
    '    <<: *node-service',
    '    build:',
    '      context: .',
    `      args: { SERVICE: services/${n.plural}, PORT: '${c.port}' }`,
    '    environment:',
    '      <<: *node-env',
    `      PORT: '${c.port}'`,
    '      MONGODB_URL: mongodb://mongo:27017',
    '      # Change events: the relay publishes them to the `events` exchange.',
    '      AMQP_URL: amqp://${RABBITMQ_DEFAULT_USER:-restgate}:${RABBITMQ_DEFAULT_PASS:?set RABBITMQ_DEFAULT_PASS in .env (see .env.example)}@rabbitmq:5672',
    '    depends_on:',
    '      mongo: { condition: service_healthy }',
    '      rabbitmq: { condition: service_healthy }',
  ];
  lines.splice(after.end + 1, 0, ...block);
  // The gateway's lines come before the new block (it is the first service), so its indexes hold.
  const gw = composeBlocks(lines, file).find((b) => b.name === 'gateway');
  if (
    !gw ||
    !insertIntoMapping(lines, gw, 'environment', `      ${n.upper}_URL: http://${n.plural}:${c.port}`, file, /^ {6}[A-Z0-9_]+_URL: /)
  ) {
    throw anchorError(file, "the gateway's environment:");
  }
  const gw2 = /** @type {ComposeBlock} */ (composeBlocks(lines, file).find((b) => b.name === 'gateway')); // found above
  const dependency = `      ${n.plural}: { condition: service_healthy }`;
  if (!insertIntoMapping(lines, gw2, 'depends_on', dependency, file)) lines.splice(gw2.end + 1, 0, '    depends_on:', dependency);
  return lines.join('\n');
}

function removeFromCompose(text, { plural, upper }, file) {
  let lines = text.split('\n');
  const block = composeBlocks(lines, file).find((b) => b.name === plural);
  if (block) {
    // The block and the blank line before it.
    const from = block.start > 0 && /^\s*$/.test(lines[block.start - 1]) ? block.start - 1 : block.start;
    lines.splice(from, block.end + 1 - from);
  }
  const gateway = composeBlocks(lines, file).find((b) => b.name === 'gateway');
  if (gateway) {
    const inGateway = (i) => i > gateway.start && i <= gateway.end;
    lines = lines.filter(
      (l, i) => !(inGateway(i) && (l.startsWith(`      ${upper}_URL: `) || l.startsWith(`      ${plural}: { condition: `))),
    );
    // A depends_on left empty goes too.
    const gw = /** @type {ComposeBlock} */ (composeBlocks(lines, file).find((b) => b.name === 'gateway')); // found above
    const dep = lines.findIndex((l, i) => i > gw.start && i <= gw.end && l === '    depends_on:');
    if (dep >= 0 && !/^ {6}\S/.test(lines[dep + 1] ?? '')) lines.splice(dep, 1);
  }
  return lines.join('\n');
}

// -----------------------------------------------------------------------------------------------
// tsconfig.json: the project reference

const REFERENCES_RE = /"references":\s*\[[\s\S]*?\]/;

function withReferences(text, file, change) {
  let config;
  try {
    config = JSON.parse(text);
  } catch {
    throw new GeneratorError(`${file} is not valid JSON`);
  }
  if (!Array.isArray(config.references) || !REFERENCES_RE.test(text)) throw anchorError(file, 'the references array');
  const refs = change(config.references);
  return text.replace(
    REFERENCES_RE,
    `"references": [\n${refs.map((r) => `    ${JSON.stringify(r).replace(/^\{"path":(.*)\}$/, '{ "path": $1 }')}`).join(',\n')}\n  ]`,
  );
}

const addToTsconfig = (text, c, file) => withReferences(text, file, (refs) => [...refs, { path: `services/${c.names.plural}` }]);
const removeFromTsconfig = (text, { plural }, file) =>
  withReferences(text, file, (refs) => refs.filter((r) => r.path !== `services/${plural}`));

// -----------------------------------------------------------------------------------------------
// package-lock.json (and npm's copy in node_modules): the workspace and its link

function withLockPackages(text, file, change) {
  let lock;
  try {
    lock = JSON.parse(text);
  } catch {
    throw new GeneratorError(`${file} is not valid JSON`);
  }
  if (!lock.packages || typeof lock.packages !== 'object') throw anchorError(file, 'the packages map');
  const packages = { ...lock.packages };
  change(packages);
  // npm writes the keys in this order; keeping it makes the next `npm install` a no-op.
  const keys = Object.keys(packages).sort((a, b) => a.localeCompare(b, 'en'));
  lock.packages = Object.fromEntries(keys.map((k) => [k, packages[k]]));
  return `${JSON.stringify(lock, null, 2)}\n`;
}

function addToLock(text, c, file, pkg) {
  return withLockPackages(text, file, (packages) => {
    packages[`node_modules/@restgate/${c.names.plural}`] = { resolved: `services/${c.names.plural}`, link: true };
    packages[`services/${c.names.plural}`] = {
      name: pkg.name,
      version: pkg.version,
      license: pkg.license,
      dependencies: pkg.dependencies,
      devDependencies: pkg.devDependencies,
    };
  });
}

function removeFromLock(text, { plural }, file) {
  return withLockPackages(text, file, (packages) => {
    delete packages[`node_modules/@restgate/${plural}`];
    delete packages[`services/${plural}`];
  });
}

module.exports = { addToCompose, removeFromCompose, addToTsconfig, removeFromTsconfig, addToLock, removeFromLock };
