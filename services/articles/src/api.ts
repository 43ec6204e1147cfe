/**
 * The articles service's routes, described once: method, path, default level (ROUTE_POLICY may
 * change it), schemas and docs. http/article.routes.ts binds a handler to each; the gateway reads
 * the compiled `api` (dist/api.js) for its policy table. Data only: nothing here connects or starts.
 */
import { defineSpec, type ServiceApi } from '@restgate/shared';
import { routeLevel } from '@restgate/shared/resource';
import {
  articleListingSchema,
  articleParams,
  articleViewSchema,
  createArticleBody,
  listArticlesQuery,
  updateArticleBody,
  type UpdateArticleBody,
} from './http/article.schemas';
import { articleResource } from './resource';

const tags = ['articles'];
const problem = (description: string) => ({ description });
const view = { description: 'The article', schema: articleViewSchema };

const update = (method: 'put' | 'patch') =>
  defineSpec<UpdateArticleBody, Record<string, never>, { id: string }>({
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
  });

export const articlesApi = {
  createArticle: defineSpec({
    method: 'post',
    path: '/articles',
    level: routeLevel(articleResource.access.create),
    summary: 'Create an article owned by the caller',
    tags,
    schemas: { body: createArticleBody },
    responses: { 201: view, 400: problem('Invalid body'), 401: problem('No credential'), 403: problem('Not a user token') },
  }),
  listArticles: defineSpec({
    method: 'get',
    path: '/articles',
    level: routeLevel(articleResource.access.list),
    summary: 'List articles: q, page, limit, sort, fields',
    tags,
    schemas: { query: listArticlesQuery },
    responses: { 200: { description: 'One page of articles', schema: articleListingSchema }, 400: problem('Invalid listing parameter') },
  }),
  getArticle: defineSpec({
    method: 'get',
    path: '/articles/:id',
    level: routeLevel(articleResource.access.read),
    summary: 'Get an article',
    tags,
    schemas: { params: articleParams },
    responses: { 200: view, 404: problem('No such article') },
  }),
  replaceArticle: update('put'),
  changeArticle: update('patch'),
  deleteArticle: defineSpec({
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
  }),
};

/** What the gateway reads: every route with its default level. */
export const api: ServiceApi = articlesApi;
