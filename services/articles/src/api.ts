/**
 * The articles service's routes, described once: method, path, default level (ROUTE_POLICY may
 * change it), schemas and docs. http/article.routes.ts binds a handler to each; the gateway reads
 * the compiled `api` (dist/api.js) for its policy table. Data only: nothing here connects or starts.
 */
import { defineSpec, type ServiceApi } from '@restgate/shared/http';
import { ruleSpec } from '@restgate/shared/resource';
import {
  articleListingSchema,
  articleParams,
  articleViewSchema,
  createArticleBody,
  listArticlesQuery,
  updateArticleBody,
} from './http/article.schemas';
import { articleCodes as E } from './errors';
import { articleResource } from './resource';

const tags = ['articles'];
const view = { description: 'The article, with its ETag', schema: articleViewSchema };
const notModified = { description: 'Not modified: If-None-Match names the current ETag' };
// The error answers list catalogue entries (./errors): the API docs describe each code with its text.
const invalid = { errors: [E.validation_failed] };
const noCredential = { errors: [E.credential_missing, E.invalid_token] };
// Refusals of an owner preset, and of a rule (resource.ts `rules`, a field's `write`).
const notOwner = { errors: [E.not_owner, E.rule_denied, E.field_not_writable] };
const notFound = { errors: [E.article_not_found] };
const preconditionFailed = { errors: [E.precondition_failed] };
const IF_MATCH =
  'With `If-Match: <ETag>` (from a GET or an earlier write) the change happens only if the article is still at that version; otherwise 412 `precondition_failed` and nothing changes. Without it, the change happens as before.';

const update = (method: 'put' | 'patch') =>
  defineSpec({
    method,
    path: '/articles/:id',
    ...ruleSpec(articleResource, 'update'),
    summary: 'Update an article (owner or admin); omitted fields stay as they are',
    description: IF_MATCH,
    tags,
    schemas: { body: updateArticleBody, params: articleParams },
    responses: {
      200: view,
      400: invalid,
      401: noCredential,
      403: notOwner,
      404: notFound,
      412: preconditionFailed,
    },
  });

export const articlesApi = {
  createArticle: defineSpec({
    method: 'post',
    path: '/articles',
    ...ruleSpec(articleResource, 'create'),
    summary: 'Create an article owned by the caller',
    tags,
    schemas: { body: createArticleBody },
    responses: { 201: view, 400: invalid, 401: noCredential, 403: { errors: [E.forbidden, E.rule_denied, E.field_not_writable] } },
  }),
  listArticles: defineSpec({
    method: 'get',
    path: '/articles',
    ...ruleSpec(articleResource, 'list'),
    summary: 'List articles: q, filters, page or after, limit, sort, fields, count',
    tags,
    schemas: { query: listArticlesQuery },
    responses: {
      200: { description: 'One page of articles', schema: articleListingSchema },
      304: notModified,
      400: { description: 'Also a parameter the listing does not know', errors: [E.validation_failed] },
    },
  }),
  getArticle: defineSpec({
    method: 'get',
    path: '/articles/:id',
    ...ruleSpec(articleResource, 'read'),
    summary: 'Get an article',
    description: 'Answers a strong `ETag`; with `If-None-Match` naming it, 304 and no body.',
    tags,
    schemas: { params: articleParams },
    responses: { 200: view, 304: notModified, 404: notFound },
  }),
  replaceArticle: update('put'),
  changeArticle: update('patch'),
  deleteArticle: defineSpec({
    method: 'delete',
    path: '/articles/:id',
    ...ruleSpec(articleResource, 'delete'),
    summary: 'Delete an article (owner or admin)',
    description: IF_MATCH,
    tags,
    schemas: { params: articleParams },
    responses: {
      204: { description: 'Deleted' },
      401: noCredential,
      403: notOwner,
      404: notFound,
      412: preconditionFailed,
    },
  }),
};

/** What the gateway reads: every route with its default level. */
export const api: ServiceApi = articlesApi;
