import type { Db } from 'mongodb';
import { createResourceRepository } from '@restgate/shared/resource';
import type { Article } from '../domain/article.model';
import { articleResource } from '../resource';

export const ARTICLES_COLLECTION = articleResource.name;

/**
 * Articles in the collection of their name, with the indexes the listing and the owner lookup use;
 * listing cursors are signed with a key derived from `cursorSecret`.
 */
export function createArticleRepository(db: Db, cursorSecret: string) {
  return createResourceRepository<Article>(db, articleResource, { cursorSecret });
}
