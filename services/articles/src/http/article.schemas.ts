import Joi from 'joi';
import { listingQuerySchema, type ListingQuery } from '@restgate/shared';
import { articleResource } from '../domain/article.model';
import { listingSpecOf } from '../domain/resource';

export const TITLE_MAX = 200;
export const CONTENT_MAX = 100_000;

export interface CreateArticleBody {
  title: string;
  content: string;
}

export type UpdateArticleBody = Partial<CreateArticleBody>;

const title = Joi.string()
  .trim()
  .min(1)
  .max(TITLE_MAX)
  .description(`Title, trimmed, 1 to ${TITLE_MAX} characters.`)
  .example('Hello, world');

// Not trimmed: whitespace can matter in content. Empty is allowed (a draft may start as a title).
const content = Joi.string()
  .allow('')
  .max(CONTENT_MAX)
  .description(`Body text, up to ${CONTENT_MAX} characters; may be empty.`)
  .example('The first article.');

export const createArticleBody = Joi.object<CreateArticleBody>({
  title: title.required(),
  content: content.required(),
}).description('The caller becomes the owner; an owner, id or timestamp in the body is ignored.');

/** PUT and PATCH alike: omitted fields stay as they are; an update that changes nothing is a 400. */
export const updateArticleBody = Joi.object<UpdateArticleBody>({ title, content })
  .or('title', 'content')
  .messages({ 'object.missing': 'send at least one of title, content' })
  .description('PUT and PATCH alike: omitted fields stay as they are; at least one of title, content (otherwise 400, param "body").');

export const articleParams = Joi.object<{ id: string }>({
  id: Joi.string().required().description('Article id (24 hex characters); any other value is a 404.'),
});

export const listArticlesQuery: Joi.ObjectSchema<ListingQuery> = listingQuerySchema(listingSpecOf(articleResource));

export const articleViewSchema = Joi.object({
  id: Joi.string().hex().length(24).required(),
  title: Joi.string().required(),
  content: Joi.string().allow('').required(),
  user: Joi.object({ id: Joi.string().required() }).required().description('The owner (creator).'),
  createdAt: Joi.string().isoDate().required(),
  updatedAt: Joi.string().isoDate().required().description('Equals createdAt until the first update.'),
}).description('An article');

/** A listing row: `id`, and with `fields` only the fields named there. */
const articleRowSchema = articleViewSchema.fork(['title', 'content', 'user', 'createdAt', 'updatedAt'], (field) => field.optional());

export const articleListingSchema = Joi.object({
  count: Joi.number().integer().min(0).required().description('Total matching, ignoring paging (also in X-Total-Count).'),
  rows: Joi.array().items(articleRowSchema).required().description('One page; with `fields`, only id and those fields.'),
});
