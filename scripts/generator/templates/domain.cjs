'use strict';
// src/domain: the model and descriptor, and one use case per generated method.

const { tsType } = require('../fields.cjs');
const { lines, list, namedImports, union } = require('./context.cjs');

function modelTs(c) {
  const { n } = c;
  const descriptorFields = [
    ...c.fields.map((f) => [f.name, f.name]),
    ...(c.owner ? [['user', 'userId']] : []),
    ['createdAt', 'createdAt'],
    ['updatedAt', 'updatedAt'],
  ];
  const repo = [
    c.has('create') && `  insert(${n.camel}: New${n.pascal}): Promise<${n.pascal}>;`,
    c.loads && `  /** Null for an unknown or malformed id. */\n  findById(id: string): Promise<${n.pascal} | null>;`,
    c.has('list') &&
      `  /** Rows carry \`id\` and the fields \`query.fields\` selects (all when none). */\n  list(query: ListingQuery): Promise<Listing<Selected<${n.pascal}>>>;`,
    c.has('update') &&
      `  /** Sets the given fields; null when the ${n.human} is gone. */\n  update(id: string, changes: ${n.pascal}Changes & { updatedAt: Date }): Promise<${n.pascal} | null>;`,
    c.has('delete') && `  /** False when there was nothing to remove. */\n  remove(id: string): Promise<boolean>;`,
  ];
  return lines(
    c.has('list') && `import type { ListingQuery } from '@restgate/shared';`,
    `import type { ${namedImports([...(c.has('list') ? ['Listing'] : []), 'ResourceDescriptor', ...(c.has('list') ? ['Selected'] : [])])} } from './resource';`,
    '',
    `export interface ${n.pascal} {`,
    '  id: string;',
    ...c.fields.map((f) => `  ${f.name}${f.required ? '' : '?'}: ${tsType(f)};`),
    c.owner && "  /** The owner: the creating user's id, as the gateway's principal gives it. */\n  userId: string;",
    '  createdAt: Date;',
    '  updatedAt: Date;',
    '}',
    '',
    c.has('create') && `export type New${n.pascal} = Omit<${n.pascal}, 'id'>;`,
    c.has('update') && `export type ${n.pascal}Changes = Partial<Pick<${n.pascal}, ${union(c.fieldNames)}>>;`,
    (c.has('create') || c.has('update')) && '',
    `export const ${n.camel}Resource = {`,
    `  fields: { ${descriptorFields.map(([api, model]) => `${api}: '${model}'`).join(', ')} },`,
    `  searchable: [${list(c.searchable)}],`,
    `  sortable: [${list(c.sortable)}],`,
    `  defaultSort: '${c.defaultSort}',`,
    `} satisfies ResourceDescriptor<${union(c.apiFields)}>;`,
    '',
    `export type ${n.pascal}Field = keyof typeof ${n.camel}Resource.fields;`,
    '',
    '/** Storage as the use cases need it; plain objects in and out. */',
    `export interface ${n.pascal}Repository {`,
    ...repo,
    '}',
    '',
    `export interface ${n.pascal}Deps {`,
    `  ${n.camelPlural}: ${n.pascal}Repository;`,
    '}',
    '',
  );
}

function inputFields(c) {
  return c.fields.map((f) => `  ${f.name}${f.required ? '' : '?'}: ${tsType(f)};`);
}

function createTs(c) {
  const { n } = c;
  const assign = [...c.fields.map((f) => `    ${f.name}: input.${f.name},`), ...(c.owner ? ['    userId: input.principal.id,'] : [])];
  return lines(
    c.owner && `import type { Principal } from '@restgate/shared';`,
    `import type { ${n.pascal}, ${n.pascal}Deps } from './${n.singular}.model';`,
    c.owner && `import { assertUser } from './ownership';`,
    '',
    `export interface Create${n.pascal}Input {`,
    ...inputFields(c),
    c.owner && '  /** The creator becomes the owner; an owner named in the body is never read. */\n  principal: Principal;',
    '}',
    '',
    `export async function create${n.pascal}({ ${n.camelPlural} }: ${n.pascal}Deps, input: Create${n.pascal}Input): Promise<${n.pascal}> {`,
    c.owner && '  assertUser(input.principal);',
    '  const now = new Date();',
    `  return ${n.camelPlural}.insert({`,
    ...assign,
    '    createdAt: now,',
    '    updatedAt: now,',
    '  });',
    '}',
    '',
  );
}

function getTs(c) {
  const { n } = c;
  const own = c.level('read') === 'owner';
  return lines(
    own && `import type { Principal } from '@restgate/shared';`,
    `import { ${n.camel}Errors } from '../errors';`,
    `import type { ${n.pascal}, ${n.pascal}Deps } from './${n.singular}.model';`,
    own && `import { assertOwnerOrAdmin, assertUser } from './ownership';`,
    '',
    `/** The ${n.human}, or 404 (also for an id that is not well formed). */`,
    `export async function get${n.pascal}({ ${n.camelPlural} }: ${n.pascal}Deps, id: string): Promise<${n.pascal}> {`,
    `  const ${n.camel} = await ${n.camelPlural}.findById(id);`,
    `  if (!${n.camel}) throw ${n.camel}Errors.notFound();`,
    `  return ${n.camel};`,
    '}',
    own && '',
    own && `/** GET /${n.plural}/:id: only the owner or an admin may read it. */`,
    own &&
      `export async function read${n.pascal}(deps: ${n.pascal}Deps, input: { id: string; principal: Principal }): Promise<${n.pascal}> {`,
    own && '  assertUser(input.principal);',
    own && `  const ${n.camel} = await get${n.pascal}(deps, input.id);`,
    own && `  assertOwnerOrAdmin(input.principal, ${n.camel}.userId);`,
    own && `  return ${n.camel};`,
    own && '}',
    '',
  );
}

function listTs(c) {
  const { n } = c;
  return `import type { ListingQuery } from '@restgate/shared';
import type { ${n.pascal}, ${n.pascal}Deps } from './${n.singular}.model';
import type { Listing, Selected } from './resource';

export async function list${n.pascalPlural}({ ${n.camelPlural} }: ${n.pascal}Deps, query: ListingQuery): Promise<Listing<Selected<${n.pascal}>>> {
  return ${n.camelPlural}.list(query);
}
`;
}

function updateTs(c) {
  const { n } = c;
  const own = c.level('update') === 'owner';
  return lines(
    own && `import type { Principal } from '@restgate/shared';`,
    `import { ${n.camel}Errors } from '../errors';`,
    `import type { ${n.pascal}, ${n.pascal}Changes, ${n.pascal}Deps } from './${n.singular}.model';`,
    own && `import { get${n.pascal} } from './get-${n.singular}';`,
    own && `import { assertOwnerOrAdmin, assertUser } from './ownership';`,
    '',
    `export interface Update${n.pascal}Input {`,
    '  id: string;',
    '  /** Only the fields the client sent; the others stay as they are (PUT and PATCH alike). */',
    `  changes: ${n.pascal}Changes;`,
    own && '  principal: Principal;',
    '}',
    '',
    `export async function update${n.pascal}(deps: ${n.pascal}Deps, input: Update${n.pascal}Input): Promise<${n.pascal}> {`,
    own && '  assertUser(input.principal);',
    own && `  const ${n.camel} = await get${n.pascal}(deps, input.id);`,
    own && `  assertOwnerOrAdmin(input.principal, ${n.camel}.userId);`,
    `  const updated = await deps.${n.camelPlural}.update(input.id, { ...input.changes, updatedAt: new Date() });`,
    own ? '  // Deleted between the read and the write.' : '  // An unknown or malformed id, or deleted meanwhile.',
    `  if (!updated) throw ${n.camel}Errors.notFound();`,
    '  return updated;',
    '}',
    '',
  );
}

function deleteTs(c) {
  const { n } = c;
  const own = c.level('delete') === 'owner';
  return lines(
    own && `import type { Principal } from '@restgate/shared';`,
    `import { ${n.camel}Errors } from '../errors';`,
    `import type { ${n.pascal}Deps } from './${n.singular}.model';`,
    own && `import { get${n.pascal} } from './get-${n.singular}';`,
    own && `import { assertOwnerOrAdmin, assertUser } from './ownership';`,
    '',
    own
      ? `export async function delete${n.pascal}(deps: ${n.pascal}Deps, input: { id: string; principal: Principal }): Promise<void> {`
      : `export async function delete${n.pascal}(deps: ${n.pascal}Deps, input: { id: string }): Promise<void> {`,
    own && '  assertUser(input.principal);',
    own && `  const ${n.camel} = await get${n.pascal}(deps, input.id);`,
    own && `  assertOwnerOrAdmin(input.principal, ${n.camel}.userId);`,
    own ? '  // Someone else deleted it first.' : '  // An unknown or malformed id, or deleted meanwhile.',
    `  if (!(await deps.${n.camelPlural}.remove(input.id))) throw ${n.camel}Errors.notFound();`,
    '}',
    '',
  );
}

module.exports = { modelTs, createTs, getTs, listTs, updateTs, deleteTs };
