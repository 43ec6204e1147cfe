'use strict';
// test/support: builders (principals, bodies, stored records, views) and the harness.

const { lines, namedImports } = require('../context.cjs');
const { bodyType, bodyValue, viewOfDoc } = require('./values.cjs');
const { tsType } = require('../../fields.cjs');

/** Import lines for the names `body` uses, from each module in order. */
function importsFor(body, modules) {
  const used = (name) => new RegExp(`(^|[^\\w$.])${name.replace(/\$/g, '\\$')}\\b`).test(body);
  return modules
    .map(({ from, values = [], types = [], typeOnly = false }) => {
      const v = values.filter(used);
      const t = types.filter(used);
      if (v.length === 0 && t.length === 0) return null;
      if (typeOnly || v.length === 0) return `import type { ${namedImports(t)} } from '${from}';`;
      return `import { ${namedImports(v, t)} } from '${from}';`;
    })
    .filter(Boolean)
    .join('\n');
}

/** What test/support/builders.ts exports, for importsFor. */
function builderExports(c) {
  const { n } = c;
  return {
    from: './support/builders',
    values: [
      'aMarker',
      'anAdmin',
      n.builder,
      `${n.builder}Doc`,
      'asForm',
      'aUser',
      `given${n.pascal}`,
      `given${n.pascalPlural}`,
      'MASTER',
      'viewOf',
    ],
    types: [`${n.pascal}Doc`, `${n.pascal}Body`],
  };
}

function harnessExports(c) {
  return { from: './support/harness', values: ['call', 'parseLinks', `start${c.n.pascalPlural}`], types: ['TestService'] };
}

/** A test file: its imports (only what the body uses), then the body. */
function testFile(c, body, extra = []) {
  return `${importsFor(body, [...extra, builderExports(c), harnessExports(c)])}\n\n${body}`;
}

function buildersTs(c) {
  const { n } = c;
  const dates = c.fields.filter((f) => f.type === 'date');
  const bodyFields = c.fields.map((f) => `  ${f.name}${f.required ? '' : '?'}: ${bodyType(f)};`);
  const docFields = c.fields.map((f) => `  ${f.name}${f.required ? '' : '?'}: ${tsType(f)};`);
  return lines(
    `import { ObjectId, type Collection } from 'mongodb';`,
    `import type { Principal } from '@restgate/shared';`,
    `import { uniqueSuffix } from '@restgate/shared/testing';`,
    '',
    '/** The stored shape, as the repository writes it. */',
    `export interface ${n.pascal}Doc {`,
    '  _id: ObjectId;',
    ...docFields,
    c.owner && '  userId: string;',
    '  createdAt: Date;',
    '  updatedAt: Date;',
    '}',
    '',
    '/** A create or update body as a client sends it (dates as ISO 8601 strings). */',
    `export interface ${n.pascal}Body {`,
    ...bodyFields,
    '}',
    '',
    "type UserPrincipal = Extract<Principal, { kind: 'user' }>;",
    '',
    "export const MASTER: Principal = { kind: 'master' };",
    '',
    'export function aUser(overrides: Partial<UserPrincipal> = {}): UserPrincipal {',
    "  return { kind: 'user', id: new ObjectId().toHexString(), role: 'user', ...overrides };",
    '}',
    '',
    'export function anAdmin(): UserPrincipal {',
    "  return aUser({ role: 'admin' });",
    '}',
    '',
    `/** A word no other test uses: put it in ${c.markerField}, then search it with \`q\` to see only this test's rows. */`,
    'export function aMarker(): string {',
    '  return `mk${uniqueSuffix()}`;',
    '}',
    '',
    '/** A valid create/update body, every field set. */',
    `export function ${n.builder}(overrides: Partial<${n.pascal}Body> = {}): ${n.pascal}Body {`,
    `  return { ${c.fields.map((f) => `${f.name}: ${bodyValue(c, f)}`).join(', ')}, ...overrides };`,
    '}',
    '',
    '/** A body as a form (`key=value&…`); a field set to undefined is left out. */',
    'export function asForm(body: object): string {',
    '  const entries = Object.entries(body).filter(([, value]) => value !== undefined);',
    '  return new URLSearchParams(entries.map(([key, value]): [string, string] => [key, String(value)])).toString();',
    '}',
    '',
    `/** A stored ${n.human}, created a minute ago unless told otherwise. */`,
    `export function ${n.builder}Doc(overrides: Partial<${n.pascal}Doc> = {}): ${n.pascal}Doc {`,
    '  const createdAt = overrides.createdAt ?? new Date(Date.now() - 60_000);',
    dates.length > 0 && `  const body = ${n.builder}();`,
    '  return {',
    '    _id: new ObjectId(),',
    dates.length > 0 ? '    ...body,' : `    ...${n.builder}(),`,
    ...dates.map((f) => `    ${f.name}: new Date(body.${f.name}!),`),
    c.owner && '    userId: aUser().id,',
    '    createdAt,',
    '    updatedAt: createdAt,',
    '    ...overrides,',
    '  };',
    '}',
    '',
    `/** Stores the ${n.humanPlural} directly (arrange step) and returns them. */`,
    `export async function given${n.pascalPlural}(collection: Collection<${n.pascal}Doc>, docs: ${n.pascal}Doc[]): Promise<${n.pascal}Doc[]> {`,
    '  await collection.insertMany(docs);',
    '  return docs;',
    '}',
    '',
    `export async function given${n.pascal}(collection: Collection<${n.pascal}Doc>, overrides: Partial<${n.pascal}Doc> = {}): Promise<${n.pascal}Doc> {`,
    `  const [doc] = await given${n.pascalPlural}(collection, [${n.builder}Doc(overrides)]);`,
    '  return doc!;',
    '}',
    '',
    `/** The view the API returns for a stored ${n.human}. */`,
    `export function viewOf(doc: ${n.pascal}Doc): Record<string, unknown> {`,
    '  return {',
    '    id: doc._id.toHexString(),',
    ...c.fields.map((f) => `    ${f.name}: ${viewOfDoc(f, 'doc')},`),
    c.owner && '    user: { id: doc.userId },',
    '    createdAt: doc.createdAt.toISOString(),',
    '    updatedAt: doc.updatedAt.toISOString(),',
    '  };',
    '}',
    '',
  );
}

function harnessTs(c) {
  const { n } = c;
  return `import type { Express } from 'express';
import request from 'supertest';
import type { Collection, Db } from 'mongodb';
import { createLogger, createMongo, type Principal } from '@restgate/shared';
import { asPrincipal, TEST_PRINCIPAL_SECRET, testMongoUrl, uniqueDbName } from '@restgate/shared/testing';
import { createApp, type AppDeps } from '../../src/app';
import { ${n.upper}_COLLECTION, create${n.pascal}Repository } from '../../src/data/${n.singular}.repository';
import type { ${n.pascal}Doc } from './builders';

export interface TestService {
  app: Express;
  db: Db;
  /** The collection behind the service, to arrange records and to check side effects. */
  ${n.camelPlural}: Collection<${n.pascal}Doc>;
  stop: () => Promise<void>;
}

/** The ${n.humanPlural} app on a database of its own (one per test file), wired as start.ts wires it. */
export async function start${n.pascalPlural}(config: Partial<AppDeps['config']> = {}): Promise<TestService> {
  const logger = createLogger({ name: '${n.plural}-test', level: 'silent' });
  const mongo = createMongo(testMongoUrl(), uniqueDbName('${n.plural}'), logger);
  const repository = create${n.pascal}Repository(mongo.db);
  await repository.ensureIndexes();
  const app = createApp({
    config: { PRINCIPAL_SECRET: TEST_PRINCIPAL_SECRET, BODY_LIMIT: '100kb', ROUTE_POLICY: '', ...config },
    logger,
    ${n.camelPlural}: repository,
    readiness: [mongo.readiness],
  });
  return {
    app,
    db: mongo.db,
    ${n.camelPlural}: mongo.db.collection<${n.pascal}Doc>(${n.upper}_COLLECTION),
    stop: async () => {
      await mongo.db.dropDatabase();
      await mongo.close();
    },
  };
}

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** A request as the gateway would forward it: with \`principal\` signed for this method and path. */
export function call(app: Express, method: Method, path: string, principal?: Principal): request.Test {
  const req = request(app)[method](path);
  return principal ? req.set(asPrincipal(principal, method, path)) : req;
}

/** \`Link\` header → \`{ first: URL, prev: URL, … }\`. */
export function parseLinks(header: string | undefined): Record<string, URL> {
  const links: Record<string, URL> = {};
  for (const part of (header ?? '').split(',')) {
    const match = /<([^>]*)>;\\s*rel="([^"]+)"/.exec(part.trim());
    if (match) links[match[2]!] = new URL(match[1]!, 'http://service.test');
  }
  return links;
}
`;
}

// -----------------------------------------------------------------------------------------------
// Who calls

/** The caller a level lets through: a declaration (or null) and the expression to pass. */
function allowed(level) {
  switch (level) {
    case 'public':
      return { decl: null, arg: '', name: null, desc: 'anyone' };
    case 'user':
      return { decl: 'const user = aUser();', arg: 'user', name: 'user', desc: 'a user' };
    case 'admin':
      return { decl: 'const admin = anAdmin();', arg: 'admin', name: 'admin', desc: 'an admin' };
    case 'master':
      return { decl: null, arg: 'MASTER', name: null, desc: 'the master key' };
    case 'owner':
      return { decl: 'const owner = aUser();', arg: 'owner', name: 'owner', desc: 'the owner' };
    default:
      throw new Error(`no caller for ${level}`);
  }
}

/** The callers a level refuses, with the status and problem code each gets. */
function refused(level) {
  const anonymous = { what: 'there is no principal', principal: 'undefined', status: 401, code: 'credential_missing' };
  const master = { what: 'the caller is the master key', principal: 'MASTER', status: 403, code: 'forbidden' };
  switch (level) {
    case 'user':
      return [anonymous, master];
    case 'admin':
      return [anonymous, master, { what: 'the caller is a user, not an admin', principal: 'aUser()', status: 403, code: 'forbidden' }];
    case 'master':
      return [
        anonymous,
        { what: 'the caller is a user', principal: 'aUser()', status: 403, code: 'forbidden' },
        { what: 'the caller is an admin', principal: 'anAdmin()', status: 403, code: 'forbidden' },
      ];
    case 'owner':
      return [anonymous, master, { what: 'another user is the caller', principal: 'aUser()', status: 403, code: 'not_owner' }];
    default:
      return [];
  }
}

/** The `refused` table rows (TS source). */
function refusedRows(level) {
  return refused(level)
    .map((r) => `      { case: '${r.what}', principal: ${r.principal}, status: ${r.status}, code: '${r.code}' },`)
    .join('\n');
}

module.exports = { buildersTs, harnessTs, testFile, importsFor, allowed, refused, refusedRows, builderExports, harnessExports };
