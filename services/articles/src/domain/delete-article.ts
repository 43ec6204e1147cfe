import type { Principal } from '@restgate/shared';
import { articleErrors } from '../errors';
import type { ArticleDeps } from './article.model';
import { getArticle } from './get-article';
import { assertOwnerOrAdmin, assertUser } from './ownership';

export async function deleteArticle(deps: ArticleDeps, input: { id: string; principal: Principal }): Promise<void> {
  assertUser(input.principal);
  const article = await getArticle(deps, input.id);
  assertOwnerOrAdmin(input.principal, article.userId);
  // Someone else deleted it first.
  if (!(await deps.articles.remove(input.id))) throw articleErrors.notFound();
}
