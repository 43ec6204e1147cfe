'use strict';
// The edits a resource makes to files it shares with the rest of the stack, and their undoing.
// Each is a pure function of the file's text; an anchor it cannot find is an error, so a file
// that was reshaped by hand stops the command before anything is written.

const { GeneratorError } = require('./errors.cjs');

const escapeRe = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function anchorError(file, what) {
  return new GeneratorError(`cannot find ${what} in ${file}; was it reshaped by hand? Edit it yourself or restore its usual shape`);
}

/** The level the gateway enforces: `owner` is a user token there; the service checks ownership. */
const gatewayLevel = (level) => (level === 'owner' ? 'user' : level);

// -----------------------------------------------------------------------------------------------
// gateway/src/policy.ts: UPSTREAMS and the policy rows

function policyRows(c) {
  const p = c.names.plural;
  const row = (method, path, level) => `  { method: '${method}', path: '${path}', level: '${gatewayLevel(level)}', upstream: '${p}' },`;
  return [
    c.access.create !== 'none' && row('post', `/${p}`, c.access.create),
    c.access.list !== 'none' && row('get', `/${p}`, c.access.list),
    c.access.read !== 'none' && row('get', `/${p}/:id`, c.access.read),
    c.access.update !== 'none' && row('put', `/${p}/:id`, c.access.update),
    c.access.update !== 'none' && row('patch', `/${p}/:id`, c.access.update),
    c.access.delete !== 'none' && row('delete', `/${p}/:id`, c.access.delete),
  ].filter(Boolean);
}

const UPSTREAMS_RE = /(export const UPSTREAMS = \{\n)([\s\S]*?)(\n\} as const)/;
const TABLE_RE = /(export const POLICY_TABLE[^=]*= \[\n)([\s\S]*?)(\n\];)/;

function addToPolicy(text, c, file) {
  const n = c.names;
  if (!UPSTREAMS_RE.test(text)) throw anchorError(file, 'the UPSTREAMS object');
  if (!TABLE_RE.test(text)) throw anchorError(file, 'the POLICY_TABLE array');
  return text
    .replace(UPSTREAMS_RE, (_, open, body, close) => `${open}${body}\n  ${n.upstreamKey}: '${n.upper}_URL',${close}`)
    .replace(TABLE_RE, (_, open, body, close) => `${open}${body}\n${policyRows(c).join('\n')}${close}`);
}

function removeFromPolicy(text, { plural, upstreamKey }) {
  const upstreamLine = new RegExp(`^  ${escapeRe(upstreamKey)}: '[A-Z0-9_]+',\\n`, 'm');
  const rows = new RegExp(`^  \\{ method: '[a-z]+', path: '[^']*', level: '[^']*', upstream: '${escapeRe(plural)}' \\},\\n`, 'gm');
  return text.replace(UPSTREAMS_RE, (all) => all.replace(upstreamLine, '')).replace(rows, '');
}

// -----------------------------------------------------------------------------------------------
// gateway/src/config.ts: the upstream's URL key

const SCHEMA_URL_LINE = /^ {2}[A-Z0-9_]+_URL: upstreamUrl\(\).*\n/gm;
const TYPE_URL_LINE = /^ {2}[A-Z0-9_]+_URL: string;\n/gm;

function insertAfterLast(text, re, line, file, what) {
  const matches = [...text.matchAll(re)];
  const last = matches[matches.length - 1];
  if (!last) throw anchorError(file, what);
  const at = last.index + last[0].length;
  return `${text.slice(0, at)}${line}\n${text.slice(at)}`;
}

function addToGatewayConfig(text, c, file) {
  const n = c.names;
  const schemaLine = `  ${n.upper}_URL: upstreamUrl().default('http://127.0.0.1:${c.port}').description('Base URL of the ${n.plural} service.'),`;
  const withSchema = insertAfterLast(text, SCHEMA_URL_LINE, schemaLine, file, 'an upstream URL key (…_URL: upstreamUrl()…) in the schema');
  return insertAfterLast(
    withSchema,
    TYPE_URL_LINE,
    `  ${n.upper}_URL: string;`,
    file,
    'an upstream URL key (…_URL: string;) in GatewayConfig',
  );
}

function removeFromGatewayConfig(text, { upper }) {
  return text.replace(new RegExp(`^ {2}${upper}_URL: .*\\n`, 'gm'), '');
}

// -----------------------------------------------------------------------------------------------
// scripts/lib/stack.cjs: the SERVICES list that `npm start` and the contract tests launch

/** Index of the bracket closing the one at `open`, skipping strings and comments. */
function closingBracket(text, open) {
  const pairs = { '[': ']', '{': '}', '(': ')' };
  const stack = [];
  for (let i = open; i < text.length; i++) {
    const ch = text[i];
    if (ch === '/' && text[i + 1] === '/') i = text.indexOf('\n', i);
    else if (ch === '/' && text[i + 1] === '*') i = text.indexOf('*/', i) + 1;
    else if (ch === "'" || ch === '"' || ch === '`') {
      for (i++; i < text.length && text[i] !== ch; i++) if (text[i] === '\\') i++;
    } else if (pairs[ch]) stack.push(pairs[ch]);
    else if (ch === ']' || ch === '}' || ch === ')') {
      if (stack.pop() !== ch) return -1;
      if (stack.length === 0) return i;
    }
    if (i < 0) return -1;
  }
  return -1;
}

function servicesArray(text, file) {
  const start = /const SERVICES = \[/.exec(text);
  if (!start) throw anchorError(file, 'the SERVICES array');
  const open = start.index + start[0].length - 1;
  const close = closingBracket(text, open);
  if (close < 0) throw anchorError(file, 'the end of the SERVICES array');
  return { open, close };
}

function addToStack(text, c, file) {
  const n = c.names;
  const { close } = servicesArray(text, file);
  const entry = [
    '  {',
    `    name: '${n.plural}',`,
    `    dir: 'services/${n.plural}',`,
    `    portEnv: '${n.upper}_PORT',`,
    `    defaultPort: ${c.port},`,
    `    urlEnv: '${n.upper}_URL',`,
    "    secrets: ['PRINCIPAL_SECRET'],",
    '  },',
  ].join('\n');
  // The last entry ends with "}," (or "}" when the file has no trailing commas).
  const before = text.slice(0, close).replace(/\s*$/, '');
  return `${before}${before.endsWith('}') ? ',' : ''}\n${entry}\n${text.slice(close)}`;
}

function removeFromStack(text, { plural }, file) {
  const { open, close } = servicesArray(text, file);
  const body = text.slice(open + 1, close);
  const nameAt = body.search(new RegExp(`name: '${escapeRe(plural)}'`));
  if (nameAt < 0) return text;
  const entryOpen = body.lastIndexOf('{', nameAt);
  const entryClose = closingBracket(body, entryOpen);
  if (entryOpen < 0 || entryClose < 0) throw anchorError(file, `the ${plural} entry of SERVICES`);
  const lineStart = body.lastIndexOf('\n', entryOpen) + 1;
  let end = entryClose + 1;
  if (body[end] === ',') end++;
  if (body[end] === '\n') end++;
  return `${text.slice(0, open + 1)}${body.slice(0, lineStart)}${body.slice(end)}${text.slice(close)}`;
}

// -----------------------------------------------------------------------------------------------
// docker-compose.yml: the service, the gateway's URL and start order

/** The services' blocks: name → [first line, last non-blank line] (line indexes). */
function composeBlocks(lines, file) {
  const top = lines.findIndex((l) => /^services:\s*$/.test(l));
  if (top < 0) throw anchorError(file, 'the services: section');
  let end = lines.findIndex((l, i) => i > top && /^\S/.test(l) && !l.startsWith('#'));
  if (end < 0) end = lines.length;
  const blocks = [];
  for (let i = top + 1; i < end; i++) {
    const m = /^ {2}([A-Za-z0-9_.-]+):\s*$/.exec(lines[i]);
    if (m) blocks.push({ name: m[1], start: i });
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
    '    depends_on:',
    '      mongo: { condition: service_healthy }',
  ];
  lines.splice(after.end + 1, 0, ...block);
  // The gateway's lines come before the new block (it is the first service), so its indexes hold.
  const gw = composeBlocks(lines, file).find((b) => b.name === 'gateway');
  if (!insertIntoMapping(lines, gw, 'environment', `      ${n.upper}_URL: http://${n.plural}:${c.port}`, file, /^ {6}[A-Z0-9_]+_URL: /)) {
    throw anchorError(file, "the gateway's environment:");
  }
  const gw2 = composeBlocks(lines, file).find((b) => b.name === 'gateway');
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
    const gw = composeBlocks(lines, file).find((b) => b.name === 'gateway');
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

// -----------------------------------------------------------------------------------------------
// .env.example: the port variable of `npm start` (documentation only; optional)

const PORT_LINE = /^# [A-Z0-9_]+_PORT=\d+\n/gm;

function addToEnvExample(text, c) {
  if (!/^# [A-Z0-9_]+_PORT=\d+$/m.test(text)) return text;
  return insertAfterLast(text, PORT_LINE, `# ${c.names.upper}_PORT=${c.port}`, '.env.example', 'a port line');
}

const removeFromEnvExample = (text, { upper }) => text.replace(new RegExp(`^# ${upper}_PORT=\\d+\\n`, 'gm'), '');

module.exports = {
  policyRows,
  addToPolicy,
  removeFromPolicy,
  addToGatewayConfig,
  removeFromGatewayConfig,
  addToStack,
  removeFromStack,
  addToCompose,
  removeFromCompose,
  addToTsconfig,
  removeFromTsconfig,
  addToLock,
  removeFromLock,
  addToEnvExample,
  removeFromEnvExample,
  closingBracket,
};
