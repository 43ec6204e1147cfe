import type { Principal } from '@restgate/shared';
import { bindRoutes, ifMatchOf, type RouteDef, type RouteInput } from '@restgate/shared/http';
import { listingResult } from '@restgate/shared/data';
import { articlesApi } from '../api';
import type { Article, ArticleDeps } from '../domain/article.model';
import { createArticle } from '../domain/create-article';
import { deleteArticle } from '../domain/delete-article';
import { getArticle } from '../domain/get-article';
import { listArticles } from '../domain/list-articles';
import { updateArticle } from '../domain/update-article';
import type { UpdateArticleBody } from './article.schemas';
import { articleView } from './article.views';

/** A view without the fields the caller may not read. */
const without = <T extends Record<string, unknown>>(view: T, hidden: readonly string[]) =>
  hidden.length === 0 ? view : (Object.fromEntries(Object.entries(view).filter(([key]) => !hidden.includes(key))) as T);

/**
 * One article as `principal` may see it, with the ETag of that view (a GET whose If-None-Match
 * names it is answered 304 by the HTTP layer).
 */
const one = (deps: ArticleDeps, status: number, article: Article, principal: Principal, headers: Record<string, string> = {}) => {
  const { hidden, etag } = deps.guard.view(article, principal);
  return { status, body: without(articleView(article), hidden), headers: { ...headers, ETag: etag } };
};

/** The route table of the articles resource: a handler for each spec of src/api.ts. */
export function articleRoutes(deps: ArticleDeps): RouteDef[] {
  const update = async ({ body, params, principal, headers }: RouteInput<UpdateArticleBody, unknown, { id: string }>) =>
    one(deps, 200, await updateArticle(deps, { id: params.id, changes: body, principal, ifMatch: ifMatchOf(headers) }), principal);

  return bindRoutes(articlesApi, {
    createArticle: async ({ body, principal }) => {
      const article = await createArticle(deps, { ...body, principal });
      return one(deps, 201, article, principal, { Location: `/articles/${article.id}` });
    },
    listArticles: async ({ query, url, principal }) => {
      const { rows, ...page } = await listArticles(deps, query, principal);
      return listingResult(
        rows.map((row) => without(articleView(row, query.fields), deps.guard.view(row as Article, principal).hidden)),
        page,
        query,
        url,
      );
    },
    getArticle: async ({ params, principal }) => one(deps, 200, await getArticle(deps, params.id, principal), principal),
    replaceArticle: update,
    changeArticle: update,
    deleteArticle: async ({ params, principal, headers }) => {
      await deleteArticle(deps, { id: params.id, principal, ifMatch: ifMatchOf(headers) });
      return { status: 204 };
    },
  });
}
