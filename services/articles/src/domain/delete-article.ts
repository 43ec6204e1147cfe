import { errors, type Principal } from '@restgate/shared';
import { assertIfMatch, entityTag } from '@restgate/shared/http';
import { assertMayActOn, assertMayTry } from '@restgate/shared/resource';
import { articleErrors } from '../errors';
import { articleResource } from '../resource';
import type { ArticleDeps } from './article.model';
import { findArticle } from './get-article';
import { articleRules } from './article.rules';

/** With `ifMatch` (the client's `If-Match`), only the version it names is deleted. */
export async function deleteArticle(deps: ArticleDeps, input: { id: string; principal: Principal; ifMatch?: string }): Promise<void> {
  if (!articleRules.actions.delete.preset) return deps.guard.remove(deps.articles, input);
  const level = articleResource.access.delete;
  assertMayTry(level, input.principal);
  const article = await findArticle(deps, input.id);
  assertMayActOn(level, input.principal, article.userId);
  assertIfMatch(input.ifMatch, [entityTag(article.id, article.version), deps.guard.view(article, input.principal).etag]);
  if (await deps.articles.remove(input.id, input.ifMatch === undefined ? undefined : article.version)) return;
  // Someone else deleted it first, or (with If-Match) changed it.
  if (input.ifMatch !== undefined && (await deps.articles.findById(input.id))) throw errors.preconditionFailed();
  throw articleErrors.notFound();
}
