import type { Principal } from '@restgate/shared';
import { articleErrors } from '../errors';
import type { Article, ArticleChanges, ArticleDeps } from './article.model';
import { getArticle } from './get-article';
import { assertOwnerOrAdmin, assertUser } from './ownership';

export interface UpdateArticleInput {
  id: string;
  /** Only the fields the client sent; the others stay as they are (PUT and PATCH alike). */
  changes: ArticleChanges;
  principal: Principal;
}

export async function updateArticle(deps: ArticleDeps, input: UpdateArticleInput): Promise<Article> {
  assertUser(input.principal);
  const article = await getArticle(deps, input.id);
  assertOwnerOrAdmin(input.principal, article.userId);
  const updated = await deps.articles.update(input.id, { ...input.changes, updatedAt: new Date() });
  // Deleted between the read and the write.
  if (!updated) throw articleErrors.notFound();
  return updated;
}
