import type { Db } from 'mongodb';
import { createResourceRepository, type ChangeOutbox, type OutboxEntry } from '@restgate/shared/resource';
import type { Article } from '../domain/article.model';
import { articleResource } from '../resource';

export const ARTICLES_COLLECTION = articleResource.name;

/**
 * Articles in the collection of their name, with the indexes the listing and the owner lookup use;
 * listing cursors are signed with a key derived from `cursorSecret`; with `events`, every write
 * records its change event in the outbox.
 */
export function createArticleRepository(
  db: Db,
  cursorSecret: string,
  events?: { outbox: ChangeOutbox; onChange?: (entry: OutboxEntry) => void },
) {
  return createResourceRepository<Article>(db, articleResource, { cursorSecret, events });
}
