import type { Db } from 'mongodb';
import { createResourceRepository } from '@restgate/shared/resource';
import type { Article } from '../domain/article.model';
import { articleResource } from '../resource';

export const ARTICLES_COLLECTION = articleResource.name;

/** Articles in the collection of their name, with the indexes the listing and the owner lookup use. */
export function createArticleRepository(db: Db) {
  return createResourceRepository<Article>(db, articleResource);
}
