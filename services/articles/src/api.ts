/**
 * The articles service's routes, described once: method, path, default level (ROUTE_POLICY may
 * change it), schemas and docs. http/article.routes.ts binds a handler to each; the gateway reads
 * the compiled `api` (dist/api.js) for its policy table. Data only: nothing here connects or starts.
 */
import { defineSpec, type ServiceApi } from '@restgate/shared/http';
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
const view = { description: 'The article, with its ETag', schema: articleViewSchema };
const notModified = { description: 'Not modified: If-None-Match names the current ETag' };
const preconditionFailed = problem('If-Match does not name the current ETag (precondition_failed): nothing changed');
const IF_MATCH =
  'With `If-Match: <ETag>` (from a GET or an earlier write) the change happens only if the article is still at that version; otherwise 412 `precondition_failed` and nothing changes. Without it, the change happens as before.';

const update = (method: 'put' | 'patch') =>
  defineSpec<UpdateArticleBody, Record<string, never>, { id: string }>({
    method,
    path: '/articles/:id',
    level: routeLevel(articleResource.access.update),
    summary: 'Update an article (owner or admin); omitted fields stay as they are',
    description: IF_MATCH,
    tags,
    schemas: { body: updateArticleBody, params: articleParams },
    responses: {
      200: view,
      400: problem('Invalid body'),
      401: problem('No credential'),
      403: problem('Not the owner or an admin'),
      404: problem('No such article'),
      412: preconditionFailed,
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
    summary: 'List articles: q, filters, page or after, limit, sort, fields, count',
    tags,
    schemas: { query: listArticlesQuery },
    responses: {
      200: { description: 'One page of articles', schema: articleListingSchema },
      304: notModified,
      400: problem('Invalid listing parameter, or a parameter the listing does not know'),
    },
  }),
  getArticle: defineSpec({
    method: 'get',
    path: '/articles/:id',
    level: routeLevel(articleResource.access.read),
    summary: 'Get an article',
    description: 'Answers a strong `ETag`; with `If-None-Match` naming it, 304 and no body.',
    tags,
    schemas: { params: articleParams },
    responses: { 200: view, 304: notModified, 404: problem('No such article') },
  }),
  replaceArticle: update('put'),
  changeArticle: update('patch'),
  deleteArticle: defineSpec({
    method: 'delete',
    path: '/articles/:id',
    level: routeLevel(articleResource.access.delete),
    summary: 'Delete an article (owner or admin)',
    description: IF_MATCH,
    tags,
    schemas: { params: articleParams },
    responses: {
      204: { description: 'Deleted' },
      401: problem('No credential'),
      403: problem('Not the owner or an admin'),
      404: problem('No such article'),
      412: preconditionFailed,
    },
  }),
};

/** What the gateway reads: every route with its default level. */
export const api: ServiceApi = articlesApi;
