import { ANONYMOUS, type Principal } from '@restgate/shared';
import { assertMayActOn, assertMayTry } from '@restgate/shared/resource';
import { articleErrors } from '../errors';
import { articleResource } from '../resource';
import type { Article, ArticleDeps } from './article.model';
import { articleRules } from './article.rules';

/** The article, or 404 (also for an id that is not well formed). */
export async function findArticle({ articles }: ArticleDeps, id: string): Promise<Article> {
  const article = await articles.findById(id);
  if (!article) throw articleErrors.notFound();
  return article;
}

/** The article as `principal` may read it (an `owner` read: the owner or an admin only). */
export async function getArticle(deps: ArticleDeps, id: string, principal: Principal = ANONYMOUS): Promise<Article> {
  if (!articleRules.actions.read.preset) {
    // The rule is part of the lookup: a record it refuses is a 404, as an unknown id.
    const article = await deps.guard.read(deps.articles, id, principal);
    if (!article) throw articleErrors.notFound();
    return article;
  }
  const level = articleResource.access.read;
  assertMayTry(level, principal);
  const article = await findArticle(deps, id);
  assertMayActOn(level, principal, article.userId);
  return article;
}
