import { parseObjectId } from '@restgate/shared';
import { ObjectId, type Db } from 'mongodb';
import { articleResource, type Article, type ArticleRepository } from '../domain/article.model';
import type { Selected } from '../domain/resource';
import { findPage, setDefined, toModel, type StoredDoc } from './mongo-resource';

type ArticleDoc = StoredDoc<Article>;

export const ARTICLES_COLLECTION = 'articles';

export function createArticleRepository(db: Db): ArticleRepository & { ensureIndexes(): Promise<void> } {
  const collection = db.collection<ArticleDoc>(ARTICLES_COLLECTION);

  return {
    async ensureIndexes() {
      // One call per index: FerretDB v1 crashes when a multi-index createIndexes is repeated.
      // The default listing sort, `_id` included because mongoSort adds it as the tie-breaker.
      await collection.createIndex({ createdAt: -1, _id: -1 }, { name: 'createdAt_id' });
      // An owner's records, newest first.
      await collection.createIndex({ userId: 1, createdAt: -1 }, { name: 'owner_createdAt' });
    },

    async insert(article) {
      const doc: ArticleDoc = { _id: new ObjectId(), ...article };
      await collection.insertOne(doc);
      return toModel(doc);
    },

    async findById(id) {
      const _id = parseObjectId(id);
      const doc = _id && (await collection.findOne({ _id }));
      return doc ? toModel(doc) : null;
    },

    async list(query) {
      const { rows, count } = await findPage(collection, articleResource, query);
      return { rows: rows.map((row) => toModel(row) as Selected<Article>), count };
    },

    async update(id, changes) {
      const _id = parseObjectId(id);
      const doc = _id && (await collection.findOneAndUpdate({ _id }, { $set: setDefined(changes) }, { returnDocument: 'after' }));
      return doc ? toModel(doc) : null;
    },

    async remove(id) {
      const _id = parseObjectId(id);
      return _id !== null && (await collection.deleteOne({ _id })).deletedCount === 1;
    },
  };
}
