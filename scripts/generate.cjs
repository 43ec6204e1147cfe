#!/usr/bin/env node
// @ts-check
'use strict';
// `npm run generate -- resource <name> [options]`: a new resource service, wired into the stack.
// `npm run generate -- remove <name>`: takes one out again. See `--help`. Plain Node, no
// dependency: it works in a fresh clone before npm install.

const path = require('node:path');
const { applyPlan } = require('./generator/apply.cjs');
const { GeneratorError } = require('./generator/errors.cjs');
const { planRemove, planResource } = require('./generator/plan.cjs');
const { ALLOWED, METHODS, DEFAULT_ACCESS } = require('./generator/spec.cjs');
const { TYPE_NAMES } = require('./generator/fields.cjs');

const ROOT_DIR = path.resolve(__dirname, '..');

const HELP = `Usage:
  npm run generate -- resource <name> --fields <spec> [options]
  npm run generate -- remove <name> [--dry-run]

resource: copies services/articles to services/<name> with its names changed, and writes its
definition (src/resource.ts: fields, search, sort, access) from the options. The copy is a real
service: the same routes, use cases, repository and tests, which follow from the definition.
Outside services/<name> it edits four files: services.json (the registry npm start and the
gateway read), docker-compose.yml, tsconfig.json and package-lock.json. remove undoes it all.
Nothing is written unless everything checks out.

  <name>              the plural, lower-case kebab-case: books, blog-posts (also the URL: /books)
  --fields <spec>     comma list of name:type[:required|:optional][:min=N][:max=N][:index][:nofilter]
                      types: ${TYPE_NAMES.join(', ')}
                      e.g. "title:string:required:max=200,pages:integer:min=1:index,status:enum(draft|published)"
                      string is trimmed, 1 to max (default 1000) characters; text is kept as sent,
                      may be empty, up to max (default 100000); min/max bound numbers' values
                      every field is a listing filter (?pages[gte]=100, operators by type) unless
                      nofilter; index adds an index for it
  --access <spec>     comma list of method=level (default ${Object.entries(DEFAULT_ACCESS)
    .map(([m, l]) => `${m}=${l}`)
    .join(',')}):
${METHODS.map((m) => `                        ${m.padEnd(7)} ${ALLOWED[m].join(', ')}`).join('\n')}
                      (owner: the creator, or an admin; every record is owned by its creator)
  --rule <a=expr>     a rule for an action in place of its level, repeatable (docs/api.md, "Rules"):
                      --rule 'list=status = "published" || user.id = @auth.id'
  --field-rule <f:read=expr|f:write=expr>
                      who may read or write one field, repeatable: --field-rule 'note:read=user.id = @auth.id'
                      (rules are checked with the built shared library: run npx tsc -b first)
  --search <fields>   fields q searches (default: the string, text, email and url fields)
  --sort <fields>     fields sort accepts besides createdAt and updatedAt (default: every field but text)
  --default-sort <f>  listing order without sort (default -createdAt)
  --singular <name>   the singular when it is not the name without its s (people → person)
  --port <n>          the service's port (default: the next after the highest in services.json)
  --dry-run           list what would be written, write nothing

Example:
  npm run generate -- resource books --fields "title:string:required,pages:integer,published:boolean,isbn:string" \\
    --access "create=user,list=public,read=public,update=owner,delete=admin" --search title,isbn`;

const VALUE_OPTIONS = ['fields', 'access', 'search', 'sort', 'default-sort', 'singular', 'port'];
/** Options that may be given more than once (each adds one rule). */
const REPEATED_OPTIONS = ['rule', 'field-rule'];
const FLAG_OPTIONS = ['dry-run', 'help'];

function parseArgs(argv) {
  const positional = [];
  const options = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '-h') {
      options.help = true;
      continue;
    }
    if (!arg.startsWith('--')) {
      positional.push(arg);
      continue;
    }
    const [key, inline] = arg.slice(2).split(/=(.*)/s);
    if (REPEATED_OPTIONS.includes(key)) {
      const value = inline ?? argv[++i];
      if (value === undefined || (inline === undefined && value.startsWith('--'))) throw new GeneratorError(`--${key} needs a value`);
      (options[key] ??= []).push(value);
    } else if (VALUE_OPTIONS.includes(key)) {
      const value = inline ?? argv[++i];
      if (value === undefined || (inline === undefined && value.startsWith('--'))) throw new GeneratorError(`--${key} needs a value`);
      if (key in options) throw new GeneratorError(`--${key} is given twice`);
      options[key] = value;
    } else if (FLAG_OPTIONS.includes(key) && inline === undefined) {
      options[key] = true;
    } else {
      throw new GeneratorError(`unknown option --${key} (see npm run generate -- --help)`);
    }
  }
  return { positional, options };
}

function describe(plan) {
  const created = plan.writes.filter((w) => !w.edit).map((w) => w.path);
  const edited = plan.writes.filter((w) => w.edit).map((w) => w.path);
  const out = [];
  if (plan.removeDirs.length) out.push(`remove  ${plan.removeDirs.map((d) => `${d}/`).join(', ')}`);
  for (const p of created) out.push(`create  ${p}`);
  for (const p of edited) out.push(`edit    ${p}`);
  for (const l of plan.links) out.push(`link    ${l.path} -> ${l.target}`);
  for (const l of plan.unlinks) out.push(`unlink  ${l}`);
  return out.join('\n');
}

async function main(argv) {
  const { positional, options } = parseArgs(argv);
  const [command, name, ...extra] = positional;
  if (options.help || !command) {
    process.stdout.write(`${HELP}\n`);
    return options.help ? 0 : 1;
  }
  if (extra.length) throw new GeneratorError(`unexpected argument "${extra[0]}" (quote the --fields spec if it has spaces)`);

  let plan;
  if (command === 'resource') {
    plan = planResource(ROOT_DIR, {
      name,
      fields: options.fields,
      access: options.access,
      rules: options.rule,
      fieldRules: options['field-rule'],
      search: options.search,
      sort: options.sort,
      defaultSort: options['default-sort'],
      singular: options.singular,
      port: options.port,
    });
  } else if (command === 'remove') {
    const allowed = ['dry-run'];
    const stray = Object.keys(options).find((k) => !allowed.includes(k));
    if (stray) throw new GeneratorError(`--${stray} does not apply to remove`);
    plan = planRemove(ROOT_DIR, name);
  } else {
    throw new GeneratorError(`unknown command "${command}": use resource or remove (see npm run generate -- --help)`);
  }

  for (const warning of plan.warnings) process.stderr.write(`generate: warning: ${warning}\n`);
  if (options['dry-run']) {
    const about = plan.kind === 'resource' ? ` (${plan.spec.names.plural}, one ${plan.spec.names.human}, port ${plan.spec.port})` : '';
    process.stdout.write(`Dry run: nothing written. Would${about}:\n${describe(plan)}\n`);
    return 0;
  }
  applyPlan(ROOT_DIR, plan);
  process.stdout.write(`${describe(plan)}\n`);
  if (plan.kind === 'resource') {
    const { names, port } = plan.spec;
    process.stdout.write(
      `\n${names.plural} (one ${names.human}): services/${names.plural}, on port ${port} (${names.upper}_PORT in npm start, from services.json), behind the gateway at /${names.plural}.\n` +
        `Next: npm install && npx tsc -b && npx jest services/${names.plural}   (npm start and npm test include it from now on)\n` +
        `Undo: npm run generate -- remove ${names.plural}\n`,
    );
  } else {
    process.stdout.write(`\n${plan.name} removed. Its database, if it has one, is left as it is.\n`);
  }
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    if (err instanceof GeneratorError) {
      process.stderr.write(`generate: ${err.message}\nNothing was written.\n`);
    } else {
      process.stderr.write(`generate: unexpected error: ${err.stack || err.message}\n`);
    }
    process.exitCode = 1;
  },
);
