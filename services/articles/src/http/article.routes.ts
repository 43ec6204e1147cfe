import { defineRoute, listingResult, type RouteDef } from '@restgate/shared';
import { routeLevel } from '@restgate/shared/resource';
import { articleResource, type ArticleDeps } from '../domain/article.model';
import { createArticle } from '../domain/create-article';
import { deleteArticle } from '../domain/delete-article';
import { getArticle } from '../domain/get-article';
import { listArticles } from '../domain/list-articles';
import { updateArticle } from '../domain/update-article';
import {
  articleListingSchema,
  articleParams,
  articleViewSchema,
  createArticleBody,
  listArticlesQuery,
  updateArticleBody,
  type UpdateArticleBody,
} from './article.schemas';
import { articleView } from './article.views';

const tags = ['articles'];
const problem = (description: string) => ({ description });
const view = { description: 'The article', schema: articleViewSchema };

/** The route table of the articles resource. Levels are defaults: ROUTE_POLICY may change them. */
export function articleRoutes(deps: ArticleDeps): RouteDef[] {
  const update = (method: 'put' | 'patch') =>
    defineRoute<UpdateArticleBody, Record<string, never>, { id: string }>({
      method,
      path: '/articles/:id',
      level: routeLevel(articleResource.access.update),
      summary: 'Update an article (owner or admin); omitted fields stay as they are',
      tags,
      schemas: { body: updateArticleBody, params: articleParams },
      responses: {
        200: view,
        400: problem('Invalid body'),
        401: problem('No credential'),
        403: problem('Not the owner or an admin'),
        404: problem('No such article'),
      },
      handler: async ({ body, params, principal }) => ({
        status: 200,
        body: articleView(await updateArticle(deps, { id: params.id, changes: body, principal })),
      }),
    });

  return [
    defineRoute({
      method: 'post',
      path: '/articles',
      level: routeLevel(articleResource.access.create),
      summary: 'Create an article owned by the caller',
      tags,
      schemas: { body: createArticleBody },
      responses: { 201: view, 400: problem('Invalid body'), 401: problem('No credential'), 403: problem('Not a user token') },
      handler: async ({ body, principal }) => {
        const article = await createArticle(deps, { ...body, principal });
        return { status: 201, body: articleView(article), headers: { Location: `/articles/${article.id}` } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/articles',
      level: routeLevel(articleResource.access.list),
      summary: 'List articles: q, page, limit, sort, fields',
      tags,
      schemas: { query: listArticlesQuery },
      responses: { 200: { description: 'One page of articles', schema: articleListingSchema }, 400: problem('Invalid listing parameter') },
      handler: async ({ query, url }) => {
        const { rows, count } = await listArticles(deps, query);
        return listingResult(
          rows.map((row) => articleView(row, query.fields)),
          count,
          query,
          url,
        );
      },
    }),
    defineRoute({
      method: 'get',
      path: '/articles/:id',
      level: routeLevel(articleResource.access.read),
      summary: 'Get an article',
      tags,
      schemas: { params: articleParams },
      responses: { 200: view, 404: problem('No such article') },
      handler: async ({ params, principal }) => ({ status: 200, body: articleView(await getArticle(deps, params.id, principal)) }),
    }),
    update('put'),
    update('patch'),
    defineRoute({
      method: 'delete',
      path: '/articles/:id',
      level: routeLevel(articleResource.access.delete),
      summary: 'Delete an article (owner or admin)',
      tags,
      schemas: { params: articleParams },
      responses: {
        204: { description: 'Deleted' },
        401: problem('No credential'),
        403: problem('Not the owner or an admin'),
        404: problem('No such article'),
      },
      handler: async ({ params, principal }) => {
        await deleteArticle(deps, { id: params.id, principal });
        return { status: 204 };
      },
    }),
  ];
}
