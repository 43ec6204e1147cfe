import { Joi } from '@restgate/shared';

const accessToken = Joi.alternatives()
  .try(Joi.string().allow(''), Joi.array().items(Joi.string().allow('')))
  .description("The provider's access token (or send it as Authorization: Bearer); give it in one place only.");

/** `access_token` may come in the body or the query string; everything else is ignored. */
export const providerTokenBody = Joi.object<{ access_token?: string | string[] }>({ access_token: accessToken });
export const providerTokenQuery = Joi.object<{ access_token?: string | string[] }>({ access_token: accessToken });
