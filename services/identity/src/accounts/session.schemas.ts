import { Joi } from '@restgate/shared';
import { LISTING_LIMITS } from '@restgate/shared/data';
import { fullUserSchema } from './user.schemas';

/** `POST /auth/refresh`'s body: the refresh token a sign-in or the last refresh gave. */
export const refreshBody = Joi.object<{ refreshToken: string }>({
  refreshToken: Joi.string()
    .max(512)
    .required()
    .description('The refresh token from the sign-in or the last refresh; it is used up.')
    .example('Zx1c3v5b7n9m1q3w5e7r9t1y3u5i7o9p1a3s5d7f9g0'),
});

/** A session listing has no search or sort of its own: newest first, in pages. */
export const sessionListQuery = Joi.object<{ page: number; limit: number }>({
  page: Joi.number().integer().min(1).max(LISTING_LIMITS.maxPage).default(1).description('1-based page number.'),
  limit: Joi.number().integer().min(1).max(LISTING_LIMITS.maxLimit).default(LISTING_LIMITS.defaultLimit).description('Page size.'),
});

/** What a sign-in and a refresh answer. */
export const sessionTokensSchema = Joi.object({
  token: Joi.string().description('Access token (JWT, HS256) carrying the session id (`sid`); short-lived.'),
  refreshToken: Joi.string().description('Opaque refresh token (256 bits): POST /auth/refresh exchanges it, once, for new tokens.'),
  expiresIn: Joi.number().integer().description('Seconds until the access token expires.').example(900),
  user: fullUserSchema,
});

export const sessionSchema = Joi.object({
  id: Joi.string().hex().length(24).description('Session id (the `sid` of its access tokens).'),
  createdAt: Joi.string().isoDate().description('When the session was opened (sign-in).'),
  lastUsedAt: Joi.string().isoDate().description('The last sign-in or refresh of the session.'),
  userAgent: Joi.string().allow(null).description('The User-Agent that opened it (at most 256 characters), or null.'),
}).description('A session: a sign-in and the refreshes that carried it on.');

export const sessionListingSchema = Joi.object({ count: Joi.number().integer(), rows: Joi.array().items(sessionSchema) });
