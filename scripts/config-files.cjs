#!/usr/bin/env node
'use strict';
// The configuration files made from the config schemas (each package's joi schema in
// src/config.ts, built to dist/config.js), so a new key is written once, in its schema:
//
//   .env.example                         a line for every key a schema reads (`# KEY=default   # note`);
//                                        a key no schema reads any more loses its line. The sections,
//                                        notes and secrets' lines stay as written; a new key's line goes
//                                        after its package's last key, its note the description's first sentence
//   deploy/helm/restgate/values.yaml     `config:`, the keys and defaults of .env.example that are not
//                                        secrets, ports or compose-only (CHART_DEFAULTS below where the chart differs)
//   deploy/helm/restgate/values.schema.json   the same keys, as the only ones `config` accepts
//   docs/configuration.md                the reference table (scripts/config-table.cjs)
//
//   node scripts/config-files.cjs --write   write them (needs `npx tsc -b`)
//   node scripts/config-files.cjs --check   exit 1 naming every file that is not what the schemas make
//
// test/ops/config-files.unit.test.ts runs the check, so a forgotten regeneration fails npm test.

const fs = require('node:fs');
const path = require('node:path');
const configTable = require('./config-table.cjs');
const { readRegistry } = require('./lib/registry.cjs');

const ROOT_DIR = path.resolve(__dirname, '..');
const ENV_EXAMPLE = '.env.example';
const VALUES = 'deploy/helm/restgate/values.yaml';
const VALUES_SCHEMA = 'deploy/helm/restgate/values.schema.json';
const CONFIG_PAGE = 'docs/configuration.md';

/** Keys of .env.example that no schema reads, and why they are there. */
const ENV_ONLY = {
  RABBITMQ_DEFAULT_USER: 'the compose stack runs the broker',
  RABBITMQ_DEFAULT_PASS: 'the compose stack runs the broker',
  RABBITMQ_ERLANG_COOKIE: "the fleet's broker nodes share it",
};

/** Keys of .env.example the chart sets itself or that belong to other ways of running the stack, and why. */
const NOT_CHART_CONFIG = {
  NODE_ENV: 'always production in the chart, as in the compose stack',
  RABBITMQ_DEFAULT_USER: 'the compose stack runs the broker; the chart takes AMQP_URL from the Secret',
  RABBITMQ_DEFAULT_PASS: 'the compose stack runs the broker; the chart takes AMQP_URL from the Secret',
  RABBITMQ_ERLANG_COOKIE: "the fleet's broker nodes share it; the chart takes AMQP_URL from the Secret",
};

/** Defaults the chart sets differently from .env.example, with the comment values.yaml carries. */
const CHART_DEFAULTS = {
  DRAIN_DELAY_MS: {
    value: '5000',
    comment: [
      "Not .env.example's 0: Kubernetes removes an endpoint asynchronously (kube-proxy, ingress",
      "controllers and the gateway's pooled connections learn of it at their own pace); for this",
      'long after SIGTERM a replica still serves what reaches it, closing each connection after',
      'its answer. The grace period includes it.',
    ],
  },
};

/** A secret-named key, or a backing service's URL (credentials inside): never a chart value. */
const isSecretKey = (key) =>
  /(SECRET|PASSWORD|PASS|TOKEN|PRIVATE_KEY|(^|_)KEY)$/.test(key) || ['MONGODB_URL', 'AMQP_URL', 'REDIS_URL', 'SMTP_URL'].includes(key);

/** Every key the schemas read, in package order: its package and its default as .env.example writes it. */
function schemaKeys(root, packages) {
  const registry = readRegistry(root);
  // Not in .env.example: each process's own (npm start sets them per process), and the upstreams' URLs.
  const skip = new Set(['HOST', 'MONGODB_DB', 'PORT', ...registry.services.map((s) => s.urlEnv).filter(Boolean)]);
  /** @type {Map<string, { service: string, value: string, note: string }>} */
  const keys = new Map();
  for (const { service, schema } of packages) {
    for (const [key, desc] of Object.entries(schema.describe().keys ?? {})) {
      if (skip.has(key) || keys.has(key)) continue;
      const flags = desc.flags ?? {};
      keys.set(key, { service, value: envDefault(flags), note: firstSentence(flags.description ?? '') });
    }
  }
  return keys;
}

function envDefault(flags) {
  if (!('default' in flags) || typeof flags.default === 'function') return '';
  const value = flags.default;
  return Array.isArray(value) ? value.join(',') : String(value ?? '');
}

function firstSentence(text) {
  const sentence = /^(.*?[.:;])(\s|$)/.exec(text)?.[1] ?? text;
  return sentence.replace(/[.:;]$/, '');
}

const KEY_LINE = /^(#\s*)?([A-Z][A-Z0-9_]*)=(.*)$/;

/**
 * .env.example as the schemas make it from `current`: lines of keys no schema reads (and not
 * ENV_ONLY) dropped with their continuation lines; a line added after its package's last key for
 * each key the file lacks.
 */
function renderEnvExample(current, keys, portKeys) {
  const known = (key) => keys.has(key) || key in ENV_ONLY || portKeys.includes(key);
  const lines = current.split('\n');
  const out = [];
  let dropping = false;
  for (const line of lines) {
    const match = KEY_LINE.exec(line);
    if (match) {
      dropping = !known(match[2]);
      if (!dropping) out.push(line);
      continue;
    }
    // A continuation of the line above: `#   …   # more`.
    if (dropping && /^#\s{8,}#/.test(line)) continue;
    dropping = false;
    out.push(line);
  }
  const present = new Set(out.map((line) => KEY_LINE.exec(line)?.[2]).filter(Boolean));
  for (const [key, { service, value, note }] of keys) {
    if (present.has(key)) continue;
    const siblings = out
      .map((line, index) => ({ key: KEY_LINE.exec(line)?.[2], index }))
      .filter(({ key: k }) => k && keys.get(k)?.service === service);
    const at = siblings.length > 0 ? siblings[siblings.length - 1].index + 1 : out.length - 1;
    const text = `# ${key}=${value}`;
    out.splice(at, 0, note ? `${text.padEnd(33)} # ${note}` : text);
    present.add(key);
  }
  return out.join('\n');
}

/** `KEY=default` and `# KEY=default  # note` lines: the key and its default (empty when none). */
function envEntries(envText) {
  return [...envText.matchAll(/^[ \t]*#?[ \t]*([A-Z][A-Z0-9_]*)=(.*)$/gm)].map(([, key, rest]) => [key, rest.split(/\s+#\s/)[0].trim()]);
}

/** values.yaml's `config` entries: .env.example's keys but secrets, ports and other stacks', with the chart's own defaults. */
function chartConfig(root, envText) {
  const registry = readRegistry(root);
  const secrets = new Set([...[registry.gateway, ...registry.services].flatMap((e) => e.secrets ?? []), 'MONGODB_URL']);
  const ports = new Set(['PORT', ...[registry.gateway, ...registry.services].map((e) => e.portEnv).filter(Boolean)]);
  return envEntries(envText).filter(([key]) => !secrets.has(key) && !isSecretKey(key) && !ports.has(key) && !(key in NOT_CHART_CONFIG));
}

/** A YAML scalar as values.yaml writes one: plain when YAML reads it back as the same string, else single-quoted. */
function yamlScalar(value) {
  const number = /^[-+]?(\d[\d_]*(\.\d*)?|\.\d+)([eE][-+]?\d+)?$|^0[xo][0-9a-f]+$|^[-+]?\.(inf|nan)$/i;
  const word = /^(true|false|null|yes|no|on|off|y|n|~)$/i;
  const special = /^[\s!&*%@`'"{}[\],|>?:#-]|[:#]\s|\s#|\s$/;
  return value === '' || number.test(value) || word.test(value) || special.test(value) ? `'${value.replace(/'/g, "''")}'` : value;
}

function renderValues(current, entries) {
  const lines = current.split('\n');
  const start = lines.indexOf('config:');
  if (start === -1) throw new Error(`${VALUES} has no top-level config:`);
  let end = start + 1;
  while (end < lines.length && (lines[end].startsWith('  ') || lines[end] === '')) end += 1;
  // Keep the blank lines that close the block.
  while (end > start + 1 && lines[end - 1] === '') end -= 1;
  const block = entries.flatMap(([key, value]) => {
    const chart = CHART_DEFAULTS[key];
    if (!chart) return [`  ${key}: ${yamlScalar(value)}`];
    return [...chart.comment.map((line) => `  # ${line}`), `  ${key}: ${yamlScalar(chart.value)}`];
  });
  return [...lines.slice(0, start + 1), ...block, ...lines.slice(end)].join('\n');
}

function renderValuesSchema(current, entries) {
  const schema = JSON.parse(current);
  const properties = schema.properties.config.properties;
  const kept = Object.fromEntries(entries.map(([key]) => [key, properties[key] ?? { type: ['string', 'number', 'boolean'] }]));
  schema.properties.config.properties = kept;
  // The file's own layout: two-space indentation, a short array on one line.
  return `${JSON.stringify(schema, null, 2).replace(/\[\n\s+("[^"\n]*"(?:,\n\s+"[^"\n]*")*)\n\s+\]/g, (_m, items) => `[${items.replace(/,\n\s+/g, ', ')}]`)}\n`;
}

/**
 * Every generated file: its path and the text the schemas make of it.
 * @param {string} [root]
 * @param {Array<{ service: string, schema: any }>} [packages] the config schemas (default: the built ones)
 */
function generated(root = ROOT_DIR, packages = configTable.loadBuiltSchemas(root)) {
  const read = (file) => fs.readFileSync(path.join(root, file), 'utf8');
  const registry = readRegistry(root);
  const portKeys = [registry.gateway, ...registry.services].map((e) => e.portEnv).filter(Boolean);
  const env = renderEnvExample(read(ENV_EXAMPLE), schemaKeys(root, packages), portKeys);
  const entries = chartConfig(root, env);
  const table = configTable.renderConfigTable(packages, { skipKeys: configTable.generatedUrlKeys(root) });
  return [
    { file: ENV_EXAMPLE, text: env },
    { file: VALUES, text: renderValues(read(VALUES), entries) },
    { file: VALUES_SCHEMA, text: renderValuesSchema(read(VALUES_SCHEMA), entries) },
    { file: CONFIG_PAGE, text: configTable.replaceTable(read(CONFIG_PAGE), table) },
  ];
}

/**
 * The generated files whose text differs from the repository's.
 * @param {string} [root]
 * @param {Array<{ service: string, schema: any }>} [packages]
 */
function staleFiles(root = ROOT_DIR, packages) {
  return generated(root, packages)
    .filter(({ file, text }) => fs.readFileSync(path.join(root, file), 'utf8') !== text)
    .map(({ file }) => file);
}

function main(args) {
  if (args.includes('--write')) {
    for (const { file, text } of generated()) {
      if (fs.readFileSync(path.join(ROOT_DIR, file), 'utf8') === text) continue;
      fs.writeFileSync(path.join(ROOT_DIR, file), text);
      process.stderr.write(`${file}: written\n`);
    }
    return 0;
  }
  const stale = staleFiles();
  if (stale.length === 0) return 0;
  process.stderr.write(
    `not what the config schemas make: ${stale.join(', ')}; run \`npx tsc -b && node scripts/config-files.cjs --write\`\n`,
  );
  return 1;
}

if (require.main === module) process.exitCode = main(process.argv.slice(2));

module.exports = {
  generated,
  staleFiles,
  renderEnvExample,
  renderValues,
  renderValuesSchema,
  chartConfig,
  isSecretKey,
  CHART_DEFAULTS,
  NOT_CHART_CONFIG,
};
