'use strict';
// src/http: the route table, its joi schemas and the view.

const { hasMaxConst, label, maxConst, numberLiteral, quote, tsType } = require('../fields.cjs');
const { lines, list, namedImports } = require('./context.cjs');

// -----------------------------------------------------------------------------------------------
// Schemas

const bound = (n) => numberLiteral(n);
/** `value` moved inside the field's min and max. */
const clamp = (value, f) => Math.min(Math.max(value, f.min ?? -Infinity), f.max ?? Infinity);

/** The joi schema of one field in a request body (without `.required()`), with its comment. */
function fieldSchema(f) {
  const name = label(f);
  const max = hasMaxConst(f) ? maxConst(f) : bound(f.max ?? 0);
  const range = (unit) => {
    if (f.min !== undefined && f.max !== undefined) return `, from ${f.min} to ${f.max}${unit}`;
    if (f.min !== undefined) return `, at least ${f.min}${unit}`;
    if (f.max !== undefined) return `, at most ${f.max}${unit}`;
    return '';
  };
  const numberRules = `${f.min !== undefined ? `.min(${bound(f.min)})` : ''}${f.max !== undefined ? `.max(${bound(f.max)})` : ''}`;
  const example = (value) => `.example(${value})`;
  switch (f.type) {
    case 'string': {
      const lengths = f.min === 1 ? `1 to \${${max}}` : `${f.min} to \${${max}}`;
      return [
        `const ${f.name} = Joi.string()`,
        '  .trim()',
        `  .min(${bound(f.min)})`,
        `  .max(${max})`,
        `  .description(\`${name}, trimmed, ${lengths} characters.\`)`,
        `  ${example(quote(`Example ${name.toLowerCase()}`.slice(0, f.max)))};`,
      ].join('\n');
    }
    case 'text': {
      const empty = f.min === 0;
      return [
        empty ? `// Not trimmed: whitespace can matter in text. Empty is allowed.` : `// Not trimmed: whitespace can matter in text.`,
        `const ${f.name} = Joi.string()`,
        empty ? "  .allow('')" : `  .min(${bound(f.min)})`,
        `  .max(${max})`,
        empty
          ? `  .description(\`${name}, up to \${${max}} characters; may be empty.\`)`
          : `  .description(\`${name}, ${f.min} to \${${max}} characters.\`)`,
        `  ${example(quote(`Example ${name.toLowerCase()}`.slice(0, f.max)))};`,
      ].join('\n');
    }
    case 'integer':
      return `const ${f.name} = Joi.number().integer()${numberRules}.description('${name}, a whole number${range('')}.').example(${bound(clamp(1, f))});`;
    case 'number':
      return `const ${f.name} = Joi.number()${numberRules}.description('${name}, a number${range('')}.').example(${bound(clamp(1.5, f))});`;
    case 'boolean':
      return `const ${f.name} = Joi.boolean().description('${name}: true or false.').example(true);`;
    case 'date':
      return `const ${f.name} = Joi.date().iso().description('${name}: an ISO 8601 date, e.g. 2026-01-02 or 2026-01-02T03:04:05Z.').example('2026-01-02T03:04:05.000Z');`;
    case 'email':
      return `const ${f.name} = Joi.string().trim().lowercase().max(${bound(f.max)}).email({ tlds: { allow: false } }).description('${name}: an e-mail address, stored lower-cased.').example('ada@example.com');`;
    case 'url':
      return `const ${f.name} = Joi.string().trim().max(${bound(f.max)}).uri({ scheme: ['http', 'https'] }).description('${name}: an http or https URL.').example('https://example.com/');`;
    case 'enum':
      return `const ${f.name} = Joi.string().valid(${list(f.values)}).description('${name}: one of ${f.values.join(', ')}.').example(${quote(f.values[0])});`;
    default:
      throw new Error(`no schema for type ${f.type}`);
  }
}

/** The joi schema of one field in the view. */
function viewFieldSchema(f) {
  const base = {
    string: 'Joi.string()',
    text: "Joi.string().allow('')",
    integer: 'Joi.number().integer()',
    number: 'Joi.number()',
    boolean: 'Joi.boolean()',
    date: 'Joi.string().isoDate()',
    email: 'Joi.string()',
    url: 'Joi.string()',
    enum: `Joi.string().valid(${list(f.values ?? [])})`,
  }[f.type];
  if (f.required) return `${base}.required()`;
  const nullable = base.endsWith(".allow('')") ? `${base.slice(0, -".allow('')".length)}.allow('', null)` : `${base}.allow(null)`;
  return `${nullable}.required().description('Null when not set.')`;
}

function schemasTs(c) {
  const { n } = c;
  const bodies = c.has('create') || c.has('update');
  const consts = c.fields.filter(hasMaxConst);
  const names = c.fieldNames;
  const ownerNote = c.owner
    ? 'The caller becomes the owner; an owner, id or timestamp in the body is ignored.'
    : 'An id or timestamp in the body is ignored.';
  const viewKeys = c.apiFields;
  return lines(
    `import Joi from 'joi';`,
    c.has('list') && `import { listingQuerySchema, type ListingQuery } from '@restgate/shared';`,
    c.has('list') && `import { ${n.camel}Resource } from '../domain/${n.singular}.model';`,
    c.has('list') && `import { listingSpecOf } from '../domain/resource';`,
    '',
    bodies && consts.map((f) => `export const ${maxConst(f)} = ${numberLiteral(f.max)};`).join('\n'),
    bodies && consts.length > 0 && '',
    bodies && `export interface Create${n.pascal}Body {`,
    bodies && c.fields.map((f) => `  ${f.name}${f.required ? '' : '?'}: ${tsType(f)};`).join('\n'),
    bodies && '}',
    bodies && '',
    c.has('update') && `export type Update${n.pascal}Body = Partial<Create${n.pascal}Body>;`,
    c.has('update') && '',
    bodies && c.fields.map((f) => `${fieldSchema(f)}\n`).join('\n'),
    c.has('create') && `export const create${n.pascal}Body = Joi.object<Create${n.pascal}Body>({`,
    c.has('create') && c.fields.map((f) => (f.required ? `  ${f.name}: ${f.name}.required(),` : `  ${f.name},`)).join('\n'),
    c.has('create') && `}).description('${ownerNote}');`,
    c.has('create') && '',
    c.has('update') && '/** PUT and PATCH alike: omitted fields stay as they are; an update that changes nothing is a 400. */',
    c.has('update') && `export const update${n.pascal}Body = Joi.object<Update${n.pascal}Body>({ ${names.join(', ')} })`,
    c.has('update') && `  .or(${list(names)})`,
    c.has('update') && `  .messages({ 'object.missing': 'send at least one of ${names.join(', ')}' })`,
    c.has('update') &&
      `  .description('PUT and PATCH alike: omitted fields stay as they are; at least one of ${names.join(', ')} (otherwise 400, param "body").');`,
    c.has('update') && '',
    c.byId && `export const ${n.camel}Params = Joi.object<{ id: string }>({`,
    c.byId && `  id: Joi.string().required().description('${capital(n.human)} id (24 hex characters); any other value is a 404.'),`,
    c.byId && '});',
    c.byId && '',
    c.has('list') &&
      `export const list${n.pascalPlural}Query: Joi.ObjectSchema<ListingQuery> = listingQuerySchema(listingSpecOf(${n.camel}Resource));`,
    c.has('list') && '',
    `export const ${n.camel}ViewSchema = Joi.object({`,
    '  id: Joi.string().hex().length(24).required(),',
    ...c.fields.map((f) => `  ${f.name}: ${viewFieldSchema(f)},`),
    c.owner && "  user: Joi.object({ id: Joi.string().required() }).required().description('The owner (creator).'),",
    '  createdAt: Joi.string().isoDate().required(),',
    "  updatedAt: Joi.string().isoDate().required().description('Equals createdAt until the first update.'),",
    `}).description('${capital(n.a)}');`,
    c.has('list') && '',
    c.has('list') && '/** A listing row: `id`, and with `fields` only the fields named there. */',
    c.has('list') && `const ${n.camel}RowSchema = ${n.camel}ViewSchema.fork([${list(viewKeys)}], (field) => field.optional());`,
    c.has('list') && '',
    c.has('list') && `export const ${n.camel}ListingSchema = Joi.object({`,
    c.has('list') &&
      "  count: Joi.number().integer().min(0).required().description('Total matching, ignoring paging (also in X-Total-Count).'),",
    c.has('list') &&
      `  rows: Joi.array().items(${n.camel}RowSchema).required().description('One page; with \`fields\`, only id and those fields.'),`,
    c.has('list') && '});',
    '',
  );
}

const capital = (text) => text.charAt(0).toUpperCase() + text.slice(1);

// -----------------------------------------------------------------------------------------------
// Views

/** A doc comment on one line, or, when that would be long, on as many as it needs. */
function comment(text) {
  if (text.length <= 130) return `/** ${text} */`;
  const out = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && line.length + word.length + 1 > 110) {
      out.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  out.push(line);
  return ['/**', ...out.map((l) => ` * ${l}`), ' */'].join('\n');
}

function viewsTs(c) {
  const { n } = c;
  const v = n.camel;
  const renderers = [
    ...c.fields.map((f) => {
      if (f.type === 'date')
        return `  ${f.name}: (${v}) => ${f.required ? `${v}.${f.name}.toISOString()` : `${v}.${f.name}?.toISOString() ?? null`},`;
      return `  ${f.name}: (${v}) => ${v}.${f.name}${f.required ? '' : ' ?? null'},`;
    }),
    ...(c.owner ? [`  user: (${v}) => ({ id: ${v}.userId }),`] : []),
    `  createdAt: (${v}) => ${v}.createdAt.toISOString(),`,
    `  updatedAt: (${v}) => ${v}.updatedAt.toISOString(),`,
  ];
  const shape = [...c.fieldNames, ...(c.owner ? ['user: { id }'] : []), 'createdAt', 'updatedAt'].join(', ');
  const notes = [c.fields.some((f) => f.type === 'date') ? 'timestamps and dates as ISO 8601' : 'timestamps as ISO 8601'];
  if (c.optionalFields.length > 0) notes.push('null for an optional field not set');
  return lines(
    `import type { ${n.pascal}, ${n.pascal}Field } from '../domain/${n.singular}.model';`,
    `import { defineView } from './view';`,
    '',
    comment(`\`{ id, ${shape} }\`, ${notes.join(', ')}.`),
    `export const ${n.camel}View = defineView<${n.pascal}, ${n.pascal}Field>({`,
    ...renderers,
    '});',
    '',
  );
}

// -----------------------------------------------------------------------------------------------
// Routes

const REFUSALS = {
  public: null,
  user: 'Not a user token',
  admin: 'Not an admin',
  master: 'Not the master key',
  owner: 'Not the owner or an admin',
};

/** 401/403 lines of a route's responses, by its level. */
function refusals(level) {
  return REFUSALS[level] ? [`401: problem('No credential')`, `403: problem('${REFUSALS[level]}')`] : [];
}

/** " (owner or admin)" and the like, for summaries. */
function levelNote(level, method) {
  if (level === 'owner') return ' (owner or admin)';
  if (level === 'admin') return ' (admin)';
  if (level === 'master') return ' (master key)';
  if (level === 'user' && (method === 'update' || method === 'delete')) return ' (any user)';
  return '';
}

function routesTs(c) {
  const { n } = c;
  const own = (method) => c.level(method) === 'owner';
  const domainImports = [
    c.has('create') && [`create${n.pascal}`, `create-${n.singular}`],
    c.has('delete') && [`delete${n.pascal}`, `delete-${n.singular}`],
    c.has('read') && [own('read') ? `read${n.pascal}` : `get${n.pascal}`, `get-${n.singular}`],
    c.has('list') && [`list${n.pascalPlural}`, `list-${n.plural}`],
    c.has('update') && [`update${n.pascal}`, `update-${n.singular}`],
  ].filter(Boolean);
  const usesView = c.has('create') || c.has('read') || c.has('update');
  const schemaValues = [
    ...(c.has('list') ? [`${n.camel}ListingSchema`, `list${n.pascalPlural}Query`] : []),
    ...(c.byId ? [`${n.camel}Params`] : []),
    ...(usesView ? [`${n.camel}ViewSchema`] : []),
    ...(c.has('create') ? [`create${n.pascal}Body`] : []),
    ...(c.has('update') ? [`update${n.pascal}Body`] : []),
  ];
  const schemaTypes = c.has('update') ? [`Update${n.pascal}Body`] : [];
  const sharedImports = ['defineRoute', ...(c.has('list') ? ['listingResult'] : [])];
  const principalArg = (method) => (own(method) ? ', principal' : '');

  const create =
    c.has('create') &&
    `    defineRoute({
      method: 'post',
      path: '/${n.plural}',
      level: '${c.routeLevel('create')}',
      summary: 'Create ${n.a}${c.owner ? ' owned by the caller' : ''}${levelNote(c.level('create'), 'create')}',
      tags,
      schemas: { body: create${n.pascal}Body },
      responses: { ${[`201: view`, `400: problem('Invalid body')`, ...refusals(c.level('create'))].join(', ')} },
      handler: async ({ body${c.owner ? ', principal' : ''} }) => {
        const ${n.camel} = await create${n.pascal}(deps, ${c.owner ? '{ ...body, principal }' : 'body'});
        return { status: 201, body: ${n.camel}View(${n.camel}), headers: { Location: \`/${n.plural}/\${${n.camel}.id}\` } };
      },
    }),`;

  const listRoute =
    c.has('list') &&
    `    defineRoute({
      method: 'get',
      path: '/${n.plural}',
      level: '${c.routeLevel('list')}',
      summary: 'List ${n.humanPlural}: q, page, limit, sort, fields${levelNote(c.level('list'), 'list')}',
      tags,
      schemas: { query: list${n.pascalPlural}Query },
      responses: { ${[
        `200: { description: 'One page of ${n.humanPlural}', schema: ${n.camel}ListingSchema }`,
        `400: problem('Invalid listing parameter')`,
        ...refusals(c.level('list')),
      ].join(', ')} },
      handler: async ({ query, url }) => {
        const { rows, count } = await list${n.pascalPlural}(deps, query);
        return listingResult(
          rows.map((row) => ${n.camel}View(row, query.fields)),
          count,
          query,
          url,
        );
      },
    }),`;

  const read =
    c.has('read') &&
    `    defineRoute({
      method: 'get',
      path: '/${n.plural}/:id',
      level: '${c.routeLevel('read')}',
      summary: 'Get ${n.a}${levelNote(c.level('read'), 'read')}',
      tags,
      schemas: { params: ${n.camel}Params },
      responses: { ${['200: view', ...refusals(c.level('read')), `404: problem('No such ${n.human}')`].join(', ')} },
      handler: async ({ params${principalArg('read')} }) => ({ status: 200, body: ${n.camel}View(await ${
        own('read') ? `read${n.pascal}(deps, { id: params.id, principal })` : `get${n.pascal}(deps, params.id)`
      }) }),
    }),`;

  const update =
    c.has('update') &&
    `  const update = (method: 'put' | 'patch') =>
    defineRoute<Update${n.pascal}Body, Record<string, never>, { id: string }>({
      method,
      path: '/${n.plural}/:id',
      level: '${c.routeLevel('update')}',
      summary: 'Update ${n.a}${levelNote(c.level('update'), 'update')}; omitted fields stay as they are',
      tags,
      schemas: { body: update${n.pascal}Body, params: ${n.camel}Params },
      responses: {
        ${['200: view', `400: problem('Invalid body')`, ...refusals(c.level('update')), `404: problem('No such ${n.human}')`].join(',\n        ')},
      },
      handler: async ({ body, params${principalArg('update')} }) => ({
        status: 200,
        body: ${n.camel}View(await update${n.pascal}(deps, { id: params.id, changes: body${principalArg('update')} })),
      }),
    });
`;

  const del =
    c.has('delete') &&
    `    defineRoute({
      method: 'delete',
      path: '/${n.plural}/:id',
      level: '${c.routeLevel('delete')}',
      summary: 'Delete ${n.a}${levelNote(c.level('delete'), 'delete')}',
      tags,
      schemas: { params: ${n.camel}Params },
      responses: {
        ${[`204: { description: 'Deleted' }`, ...refusals(c.level('delete')), `404: problem('No such ${n.human}')`].join(',\n        ')},
      },
      handler: async ({ params${principalArg('delete')} }) => {
        await delete${n.pascal}(deps, { id: params.id${principalArg('delete')} });
        return { status: 204 };
      },
    }),`;

  return lines(
    `import { ${namedImports(sharedImports, ['RouteDef'])} } from '@restgate/shared';`,
    `import type { ${n.pascal}Deps } from '../domain/${n.singular}.model';`,
    ...domainImports.map(([fn, file]) => `import { ${fn} } from '../domain/${file}';`),
    `import { ${namedImports(schemaValues, schemaTypes)} } from './${n.singular}.schemas';`,
    `import { ${n.camel}View } from './${n.singular}.views';`,
    '',
    `const tags = ['${n.plural}'];`,
    'const problem = (description: string) => ({ description });',
    usesView && `const view = { description: 'The ${n.human}', schema: ${n.camel}ViewSchema };`,
    '',
    `/** The route table of the ${n.humanPlural} resource. Levels are defaults: ROUTE_POLICY may change them. */`,
    `export function ${n.camel}Routes(deps: ${n.pascal}Deps): RouteDef[] {`,
    update,
    '  return [',
    create,
    listRoute,
    read,
    c.has('update') && "    update('put'),\n    update('patch'),",
    del,
    '  ];',
    '}',
    '',
  );
}

module.exports = { schemasTs, viewsTs, routesTs, fieldSchema, refusals, REFUSALS };
