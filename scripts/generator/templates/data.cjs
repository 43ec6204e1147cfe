'use strict';
// src/data: the repository over one collection, with its indexes.

const { lines, namedImports } = require('./context.cjs');

function repositoryTs(c) {
  const { n } = c;
  const insertsOptional = c.has('create') && c.optionalFields.length > 0;
  const usesSetDefined = c.has('update') || insertsOptional;
  const parsesIds = c.byId;
  const sortField = c.defaultSort.replace(/^-/, '');
  const direction = c.defaultSort.startsWith('-') ? -1 : 1;
  const dbSortField = sortField === 'user' ? 'userId' : sortField;

  const mongoResource = [...(c.has('list') ? ['findPage'] : []), ...(usesSetDefined ? ['setDefined'] : []), 'toModel'];
  const insert = insertsOptional
    ? [
        `    async insert(${n.camel}) {`,
        '      // An optional field the client left out is not stored, not even as null.',
        `      const doc = { _id: new ObjectId(), ...setDefined(${n.camel}) } as ${n.pascal}Doc;`,
      ]
    : [`    async insert(${n.camel}) {`, `      const doc: ${n.pascal}Doc = { _id: new ObjectId(), ...${n.camel} };`];

  return lines(
    parsesIds && `import { parseObjectId } from '@restgate/shared';`,
    c.has('create') ? `import { ObjectId, type Db } from 'mongodb';` : `import type { Db } from 'mongodb';`,
    `import { ${namedImports(c.has('list') ? [`${n.camel}Resource`] : [], [n.pascal, `${n.pascal}Repository`])} } from '../domain/${n.singular}.model';`,
    c.has('list') && `import type { Selected } from '../domain/resource';`,
    `import { ${namedImports(mongoResource, ['StoredDoc'])} } from './mongo-resource';`,
    '',
    `type ${n.pascal}Doc = StoredDoc<${n.pascal}>;`,
    '',
    `export const ${n.upper}_COLLECTION = '${n.plural}';`,
    '',
    `export function create${n.pascal}Repository(db: Db): ${n.pascal}Repository & { ensureIndexes(): Promise<void> } {`,
    `  const collection = db.collection<${n.pascal}Doc>(${n.upper}_COLLECTION);`,
    '',
    '  return {',
    '    async ensureIndexes() {',
    '      // One call per index: FerretDB v1 crashes when a multi-index createIndexes is repeated.',
    '      // The default listing sort, `_id` included because mongoSort adds it as the tie-breaker.',
    `      await collection.createIndex({ ${dbSortField}: ${direction}, _id: ${direction} }, { name: '${dbSortField}_id' });`,
    c.owner && "      // An owner's records, newest first.",
    c.owner && "      await collection.createIndex({ userId: 1, createdAt: -1 }, { name: 'owner_createdAt' });",
    '    },',
    c.has('create') && '',
    c.has('create') && insert.join('\n'),
    c.has('create') && '      await collection.insertOne(doc);',
    c.has('create') && '      return toModel(doc);',
    c.has('create') && '    },',
    c.loads && '',
    c.loads && '    async findById(id) {',
    c.loads && '      const _id = parseObjectId(id);',
    c.loads && '      const doc = _id && (await collection.findOne({ _id }));',
    c.loads && '      return doc ? toModel(doc) : null;',
    c.loads && '    },',
    c.has('list') && '',
    c.has('list') && '    async list(query) {',
    c.has('list') && `      const { rows, count } = await findPage(collection, ${n.camel}Resource, query);`,
    c.has('list') && `      return { rows: rows.map((row) => toModel(row) as Selected<${n.pascal}>), count };`,
    c.has('list') && '    },',
    c.has('update') && '',
    c.has('update') && '    async update(id, changes) {',
    c.has('update') && '      const _id = parseObjectId(id);',
    c.has('update') &&
      "      const doc = _id && (await collection.findOneAndUpdate({ _id }, { $set: setDefined(changes) }, { returnDocument: 'after' }));",
    c.has('update') && '      return doc ? toModel(doc) : null;',
    c.has('update') && '    },',
    c.has('delete') && '',
    c.has('delete') && '    async remove(id) {',
    c.has('delete') && '      const _id = parseObjectId(id);',
    c.has('delete') && '      return _id !== null && (await collection.deleteOne({ _id })).deletedCount === 1;',
    c.has('delete') && '    },',
    '  };',
    '}',
    '',
  );
}

module.exports = { repositoryTs };
