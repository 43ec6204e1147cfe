import { bindRoutes, entityTag, ifMatchOf, type RouteDef, type RouteInput } from '@restgate/shared/http';
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

/** One article, with its ETag (a GET whose If-None-Match names it is answered 304 by the HTTP layer). */
const one = (status: number, article: Article, headers: Record<string, string> = {}) => ({
  status,
  body: articleView(article),
  headers: { ...headers, ETag: entityTag(article.id, article.version) },
});

/** The route table of the articles resource: a handler for each spec of src/api.ts. */
export function articleRoutes(deps: ArticleDeps): RouteDef[] {
  const update = async ({ body, params, principal, headers }: RouteInput<UpdateArticleBody, unknown, { id: string }>) =>
    one(200, await updateArticle(deps, { id: params.id, changes: body, principal, ifMatch: ifMatchOf(headers) }));

  return bindRoutes(articlesApi, {
    createArticle: async ({ body, principal }) => {
      const article = await createArticle(deps, { ...body, principal });
      return one(201, article, { Location: `/articles/${article.id}` });
    },
    listArticles: async ({ query, url }) => {
      const { rows, ...page } = await listArticles(deps, query);
      return listingResult(
        rows.map((row) => articleView(row, query.fields)),
        page,
        query,
        url,
      );
    },
    getArticle: async ({ params, principal }) => one(200, await getArticle(deps, params.id, principal)),
    replaceArticle: update,
    changeArticle: update,
    deleteArticle: async ({ params, principal, headers }) => {
      await deleteArticle(deps, { id: params.id, principal, ifMatch: ifMatchOf(headers) });
      return { status: 204 };
    },
  });
}
