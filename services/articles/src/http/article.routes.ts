import { bindRoutes, listingResult, type RouteDef, type RouteInput } from '@restgate/shared';
import { articlesApi } from '../api';
import type { ArticleDeps } from '../domain/article.model';
import { createArticle } from '../domain/create-article';
import { deleteArticle } from '../domain/delete-article';
import { getArticle } from '../domain/get-article';
import { listArticles } from '../domain/list-articles';
import { updateArticle } from '../domain/update-article';
import type { UpdateArticleBody } from './article.schemas';
import { articleView } from './article.views';

/** The route table of the articles resource: a handler for each spec of src/api.ts. */
export function articleRoutes(deps: ArticleDeps): RouteDef[] {
  const update = async ({ body, params, principal }: RouteInput<UpdateArticleBody, unknown, { id: string }>) => ({
    status: 200,
    body: articleView(await updateArticle(deps, { id: params.id, changes: body, principal })),
  });

  return bindRoutes(articlesApi, {
    createArticle: async ({ body, principal }) => {
      const article = await createArticle(deps, { ...body, principal });
      return { status: 201, body: articleView(article), headers: { Location: `/articles/${article.id}` } };
    },
    listArticles: async ({ query, url }) => {
      const { rows, count } = await listArticles(deps, query);
      return listingResult(
        rows.map((row) => articleView(row, query.fields)),
        count,
        query,
        url,
      );
    },
    getArticle: async ({ params, principal }) => ({ status: 200, body: articleView(await getArticle(deps, params.id, principal)) }),
    replaceArticle: update,
    changeArticle: update,
    deleteArticle: async ({ params, principal }) => {
      await deleteArticle(deps, { id: params.id, principal });
      return { status: 204 };
    },
  });
}
