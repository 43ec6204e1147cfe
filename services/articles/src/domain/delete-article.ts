import type { Principal } from '@restgate/shared';
import { assertMayActOn, assertMayTry } from '@restgate/shared/resource';
import { articleErrors } from '../errors';
import { articleResource } from '../resource';
import type { ArticleDeps } from './article.model';
import { findArticle } from './get-article';

export async function deleteArticle(deps: ArticleDeps, input: { id: string; principal: Principal }): Promise<void> {
  const level = articleResource.access.delete;
  assertMayTry(level, input.principal);
  const article = await findArticle(deps, input.id);
  assertMayActOn(level, input.principal, article.userId);
  // Someone else deleted it first.
  if (!(await deps.articles.remove(input.id))) throw articleErrors.notFound();
}
