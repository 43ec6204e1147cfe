import type { Principal } from '@restgate/shared';
import type { Article, ArticleDeps } from './article.model';
import { assertUser } from './ownership';

export interface CreateArticleInput {
  title: string;
  content: string;
  /** The creator becomes the owner; an owner named in the body is never read. */
  principal: Principal;
}

export async function createArticle({ articles }: ArticleDeps, input: CreateArticleInput): Promise<Article> {
  assertUser(input.principal);
  const now = new Date();
  return articles.insert({
    title: input.title,
    content: input.content,
    userId: input.principal.id,
    createdAt: now,
    updatedAt: now,
  });
}
