import { Joi } from '@restgate/shared';
import { userSchemas } from './user.schemas';

/** Request and response schemas; the e-mail rule is sign-up's. */
export function emailVerificationSchemas() {
  const users = userSchemas({ passwordMinLength: 1 });
  return {
    requestBody: Joi.object<{ email: string }>({
      email: users.createUserBody
        .extract('email')
        .required()
        .description('The address to verify; the answer is the same whether or not it is registered or already verified.'),
    }),
    // The page's button sends nothing but the token in its URL.
    formBody: Joi.object<Record<string, never>>({}).unknown(true),
    acceptedSchema: Joi.object({
      status: Joi.string().valid('accepted'),
      message: Joi.string(),
    }).description('The same body whether or not the e-mail is registered or already verified.'),
  };
}

export const emailVerificationViewSchema = Joi.object({
  user: Joi.object({
    id: Joi.string().hex().length(24),
    name: Joi.string(),
    picture: Joi.string(),
    email: Joi.string(),
  }),
}).description('Whose address the token proves.');
