import { ANONYMOUS, type Principal } from '@restgate/shared';
import type { ListingQuery } from '@restgate/shared/data';
import type { Listing, Selected } from '@restgate/shared/resource';
import type { Article, ArticleDeps } from './article.model';
import { articleRules, hasFieldReadRules } from './article.rules';

/** A page of the articles `principal` may list: a rule expression is merged into the query (counts, pages and cursors agree with it). */
export async function listArticles(
  { articles, guard }: ArticleDeps,
  query: ListingQuery,
  principal: Principal = ANONYMOUS,
): Promise<Listing<Selected<Article>>> {
  // Field read rules are judged on whole records: `fields` narrows the view, not the read.
  const read = hasFieldReadRules ? { ...query, fields: undefined } : query;
  if (articleRules.actions.list.preset) return articles.list(read);
  return articles.list(read, guard.listWhere(principal, query));
}
