import type Joi from 'joi';
import type { ListingQuery } from '@restgate/shared/data';
import { resourceSchemas } from '@restgate/shared/resource';
import type { ArticleValues } from '../domain/article.model';
import { articleResource } from '../resource';

export type CreateArticleBody = ArticleValues;
export type UpdateArticleBody = Partial<CreateArticleBody>;

const schemas = resourceSchemas(articleResource);

export const createArticleBody = schemas.createBody as Joi.ObjectSchema<CreateArticleBody>;
/** PUT and PATCH alike: omitted fields stay as they are; an update that changes nothing is a 400. */
export const updateArticleBody = schemas.updateBody as Joi.ObjectSchema<UpdateArticleBody>;
export const articleParams = schemas.params;
export const listArticlesQuery: Joi.ObjectSchema<ListingQuery> = schemas.listingQuery;
export const articleViewSchema = schemas.view;
export const articleListingSchema = schemas.listing;
