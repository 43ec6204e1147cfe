import type { Principal } from '@restgate/shared';
import { assertMayActOn, assertMayTry } from '@restgate/shared/resource';
import { articleErrors } from '../errors';
import { articleResource } from '../resource';
import type { Article, ArticleChanges, ArticleDeps } from './article.model';
import { findArticle } from './get-article';

export interface UpdateArticleInput {
  id: string;
  /** Only the fields the client sent; the others stay as they are (PUT and PATCH alike). */
  changes: ArticleChanges;
  principal: Principal;
}

export async function updateArticle(deps: ArticleDeps, input: UpdateArticleInput): Promise<Article> {
  const level = articleResource.access.update;
  assertMayTry(level, input.principal);
  const article = await findArticle(deps, input.id);
  assertMayActOn(level, input.principal, article.userId);
  const updated = await deps.articles.update(input.id, { ...input.changes, updatedAt: new Date() } as Partial<Omit<Article, 'id'>>);
  // Deleted between the read and the write.
  if (!updated) throw articleErrors.notFound();
  return updated;
}
