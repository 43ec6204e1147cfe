import { errors } from '@restgate/shared';

/** The errors only this service raises; the rest come from `errors` in @restgate/shared. */
export const articleErrors = {
  notFound: () => errors.notFound('No article with this id.', 'article_not_found'),
};
