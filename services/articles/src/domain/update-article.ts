import { errors, type Principal } from '@restgate/shared';
import { assertIfMatch, entityTag } from '@restgate/shared/http';
import { assertFieldsWritable, assertMayActOn, assertMayTry, ruleCaller } from '@restgate/shared/resource';
import { articleErrors } from '../errors';
import { articleResource } from '../resource';
import type { Article, ArticleChanges, ArticleDeps } from './article.model';
import { findArticle } from './get-article';
import { articleRules } from './article.rules';

export interface UpdateArticleInput {
  id: string;
  /** Only the fields the client sent; the others stay as they are (PUT and PATCH alike). */
  changes: ArticleChanges;
  principal: Principal;
  /** The client's `If-Match`: the write happens only at the version it names. */
  ifMatch?: string;
}

export async function updateArticle(deps: ArticleDeps, input: UpdateArticleInput): Promise<Article> {
  if (!articleRules.actions.update.preset) return deps.guard.update(deps.articles, input);
  const level = articleResource.access.update;
  assertMayTry(level, input.principal);
  const article = await findArticle(deps, input.id);
  assertMayActOn(level, input.principal, article.userId);
  assertFieldsWritable(articleRules, input.changes, article, ruleCaller(input.principal));
  // The tag the caller saw: the plain one, or the one of a view with fields hidden from them.
  assertIfMatch(input.ifMatch, [entityTag(article.id, article.version), deps.guard.view(article, input.principal).etag]);
  const changes = { ...input.changes, updatedAt: new Date() } as Partial<Omit<Article, 'id' | 'version'>>;
  // With If-Match the write names the version just checked, so a change in between fails it.
  const updated = await deps.articles.update(input.id, changes, input.ifMatch === undefined ? undefined : article.version);
  if (updated) return updated;
  // Deleted between the read and the write, or (with If-Match) changed.
  if (input.ifMatch !== undefined && (await deps.articles.findById(input.id))) throw errors.preconditionFailed();
  throw articleErrors.notFound();
}
