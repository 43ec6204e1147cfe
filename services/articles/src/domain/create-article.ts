import type { Principal } from '@restgate/shared';
import { assertUser } from '@restgate/shared/resource';
import type { Article, ArticleDeps, ArticleValues } from './article.model';

export type CreateArticleInput = ArticleValues & {
  /** The creator becomes the owner; an owner named in the body is never read. */
  principal: Principal;
};

export async function createArticle({ articles }: ArticleDeps, input: CreateArticleInput): Promise<Article> {
  const { principal, ...values } = input;
  assertUser(principal);
  const now = new Date();
  return articles.insert({ ...values, userId: principal.id, createdAt: now, updatedAt: now } as Omit<Article, 'id' | 'version'>);
}
