import type { ListingQuery } from '@restgate/shared';
import type { Listing, ResourceDescriptor, Selected } from './resource';

export interface Article {
  id: string;
  title: string;
  content: string;
  /** The owner: the creating user's id, as the gateway's principal gives it. */
  userId: string;
  createdAt: Date;
  updatedAt: Date;
}

export type NewArticle = Omit<Article, 'id'>;
export type ArticleChanges = Partial<Pick<Article, 'title' | 'content'>>;

export const articleResource = {
  fields: { title: 'title', content: 'content', user: 'userId', createdAt: 'createdAt', updatedAt: 'updatedAt' },
  searchable: ['title', 'content'],
  sortable: ['createdAt', 'updatedAt', 'title'],
  defaultSort: '-createdAt',
} satisfies ResourceDescriptor<'title' | 'content' | 'user' | 'createdAt' | 'updatedAt'>;

export type ArticleField = keyof typeof articleResource.fields;

/** Storage as the use cases need it; plain objects in and out. */
export interface ArticleRepository {
  insert(article: NewArticle): Promise<Article>;
  /** Null for an unknown or malformed id. */
  findById(id: string): Promise<Article | null>;
  /** Rows carry `id` and the fields `query.fields` selects (all when none). */
  list(query: ListingQuery): Promise<Listing<Selected<Article>>>;
  /** Sets the given fields; null when the article is gone. */
  update(id: string, changes: ArticleChanges & { updatedAt: Date }): Promise<Article | null>;
  /** False when there was nothing to remove. */
  remove(id: string): Promise<boolean>;
}

export interface ArticleDeps {
  articles: ArticleRepository;
}
