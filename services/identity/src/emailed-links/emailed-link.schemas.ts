import { Joi } from '@restgate/shared';
import { httpPageSchema } from '@restgate/shared/http';
import { resetPage } from './reset-link';
import { userSchemas } from '../accounts/user.schemas';

/** Room for `/<token>` (44 characters) within the mail schema's 2048. */
const LINK_MAX = 2000;

/** The answer to a request for a link: the same body whoever the address belongs to. */
const acceptedSchema = (description: string) =>
  Joi.object({ status: Joi.string().valid('accepted'), message: Joi.string() }).description(description);

/** Whose link a token opens. */
const linkUserSchema = (description: string) =>
  Joi.object({
    user: Joi.object({ id: Joi.string().hex().length(24), name: Joi.string(), picture: Joi.string(), email: Joi.string() }),
  }).description(description);

/** Password resets' request and response schemas; the e-mail and password rules are those of sign-up. */
export function passwordResetSchemas(options: { passwordMinLength: number }) {
  const users = userSchemas(options);
  return {
    requestBody: Joi.object<{ email: string; link?: string }>({
      email: users.createUserBody
        .extract('email')
        .required()
        .description('The e-mail of the account; the answer is the same whether or not it is registered.'),
      // Read as a browser reads it; one that no browser can read is kept, and gets the default page.
      link: httpPageSchema(LINK_MAX)
        .custom((value: string) => resetPage(value) ?? value)
        .description(
          'The page that will receive the token: the mail links to `<link>/<token>`, so the link has no user name, query string or fragment (400); it is used as a browser reads it (scheme and host in lower case, no default port). Its origin must be one the operator allows (RESET_LINK_ORIGINS); otherwise the default reset page is used.',
        )
        .example('https://app.example.com/reset-password'),
    }),
    passwordBody: users.passwordBody,
    // The reset page's form: checked by its handler, which answers a refusal with the form again.
    formBody: Joi.object<{ password?: string; confirmation?: string }>({
      password: Joi.string().allow('').max(1024).description('The new password.'),
      confirmation: Joi.string().allow('').max(1024).description('The new password again.'),
    }),
    acceptedSchema: acceptedSchema('The same body whether or not the e-mail is registered.'),
    viewSchema: linkUserSchema('Whose password the token resets.'),
  };
}

/** E-mail verifications' request and response schemas; the e-mail rule is sign-up's. */
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
    acceptedSchema: acceptedSchema('The same body whether or not the e-mail is registered or already verified.'),
    viewSchema: linkUserSchema('Whose address the token proves.'),
  };
}
