/**
 * The e-mailed links' routes: password resets and e-mail verifications, four routes each from one shape.
 * Data only: neither connects nor starts anything (the gateway reads the specs through src/api.ts).
 */
import { defineSpec, type RouteSpec } from '@restgate/shared/http';
import type Joi from 'joi';
import { unauthorized, validation, type IdentityApiOptions } from '../accounts/api-fragments';
import { fullUserSchema } from '../accounts/user.schemas';
import { identityCodes as E } from '../errors';
import { emailVerificationSchemas, passwordResetSchemas } from './emailed-link.schemas';

type ResponseDoc = NonNullable<RouteSpec['responses']>[number];

/** What tells the two e-mailed links' routes apart: their path, texts and schemas. */
interface EmailedLinkRoutes<R, F, C> {
  path: string;
  tags: string[];
  /** The 404 of a dead token. */
  notFound: (typeof E)[keyof typeof E];
  request: { summary: string; description?: string; body: Joi.ObjectSchema<R>; accepted: ResponseDoc };
  show: { summary: string; description: string; ok: ResponseDoc };
  form: { summary: string; description: string; body: Joi.ObjectSchema<F>; ok: string; refused?: string };
  complete: { summary: string; body?: Joi.ObjectSchema<C>; refused?: string };
}

/**
 * The four routes of an e-mailed link: ask for one (master key), read what its token opens (the
 * link in the mail: JSON, or a page for a browser), the page's form, and the API's use of it.
 */
function emailedLinkApi<R, F, C>(o: EmailedLinkRoutes<R, F, C>) {
  const deadToken = { description: 'One answer for every dead token, a malformed one included.', errors: [o.notFound] };
  const token = { path: `${o.path}/:token` as const, secretParams: ['token'], noStore: true, level: 'public' as const, tags: o.tags };
  const refused = (description: string | undefined, html?: true): Record<number, ResponseDoc> =>
    description ? { 400: { description, errors: [E.validation_failed], ...(html && { html }) } } : {};
  return {
    request: defineSpec({
      method: 'post',
      path: o.path,
      level: 'master',
      tags: o.tags,
      summary: o.request.summary,
      ...(o.request.description && { description: o.request.description }),
      schemas: { body: o.request.body },
      responses: {
        202: o.request.accepted,
        400: validation,
        401: unauthorized,
        403: { description: 'A credential other than the master key.', errors: [E.forbidden] },
      },
    }),
    show: defineSpec({
      method: 'get',
      ...token,
      summary: o.show.summary,
      description: o.show.description,
      responses: { 200: { ...o.show.ok, html: true }, 404: { ...deadToken, html: true } },
    }),
    form: defineSpec({
      method: 'post',
      ...token,
      summary: o.form.summary,
      description: o.form.description,
      schemas: { body: o.form.body },
      responses: { 200: { description: o.form.ok, html: true }, ...refused(o.form.refused, true), 404: { ...deadToken, html: true } },
    }),
    complete: defineSpec({
      method: 'put',
      ...token,
      summary: o.complete.summary,
      ...(o.complete.body && { schemas: { body: o.complete.body } }),
      responses: { 200: { description: 'The user.', schema: fullUserSchema }, ...refused(o.complete.refused), 404: deadToken },
    }),
  };
}

export function passwordResetApi(options: IdentityApiOptions) {
  const schemas = passwordResetSchemas(options);
  const specs = emailedLinkApi({
    path: '/password-resets',
    tags: ['password resets'],
    notFound: E.password_reset_not_found,
    request: {
      summary:
        'Ask for a password reset mail. Answered once the request is stored, before the mail goes out; the same answer whether or not the e-mail is registered.',
      body: schemas.requestBody,
      accepted: { description: 'Accepted (also for an unknown e-mail, which gets no mail).', schema: schemas.acceptedSchema },
    },
    show: {
      summary: 'Whose password a reset token resets; a browser (`Accept: text/html`) gets the reset page instead.',
      description:
        'The link in the reset mail. JSON clients get `{ user }`. A request whose `Accept` prefers `text/html` gets a page with a form (new password, twice) that posts to `POST /password-resets/{token}`; a dead token gets a page saying so, with status 404.',
      ok: { description: 'The user the token belongs to (JSON), or the reset form (HTML).', schema: schemas.viewSchema },
    },
    form: {
      summary: "The reset page's form: sets the new password and answers a page with the outcome.",
      description:
        'For browsers, which cannot send PUT from a form: `application/x-www-form-urlencoded` with `password` and `confirmation`. The same rules and effect as `PUT /password-resets/{token}`; every answer is an HTML page. API clients use the PUT.',
      body: schemas.formBody,
      ok: 'The password is set: a page that says so.',
      refused: 'The passwords differ or break the rules: the form again, saying why; the token stays valid.',
    },
    complete: {
      summary: "Set a new password with a reset token. The token is used up, and so are the user's other reset tokens and every session.",
      body: schemas.passwordBody,
      refused: 'An invalid password (`param` is `password`): the token stays valid.',
    },
  });
  return {
    requestPasswordReset: specs.request,
    getPasswordReset: specs.show,
    submitPasswordResetForm: specs.form,
    completePasswordReset: specs.complete,
  };
}

export function emailVerificationApi(_options?: IdentityApiOptions) {
  const schemas = emailVerificationSchemas();
  const specs = emailedLinkApi({
    path: '/email-verifications',
    tags: ['e-mail verification'],
    notFound: E.email_verification_not_found,
    request: {
      summary:
        'Ask for a new verification link for an address. Answered once the request is stored; the same answer whether or not the e-mail is registered or already verified.',
      description:
        'Sign-up sends the first link; this sends a fresh one (the earlier links of the user stop working). Only a registered, unverified address gets a mail, and at most `RESET_MAILS_PER_EMAIL` of them per window.',
      body: schemas.requestBody,
      accepted: { description: 'Accepted (also for an unknown or verified e-mail, which gets no mail).', schema: schemas.acceptedSchema },
    },
    show: {
      summary: 'Whose address a verification token proves; a browser (`Accept: text/html`) gets the verification page instead.',
      description:
        'The link in the verification mail. Reading it changes nothing (mail scanners open links): JSON clients get `{ user }`, and a request whose `Accept` prefers `text/html` gets a page with one button that posts to `POST /email-verifications/{token}`; a dead token gets a page saying so, with status 404.',
      ok: { description: 'The user the token belongs to (JSON), or the page with the button (HTML).', schema: schemas.viewSchema },
    },
    form: {
      summary: "The verification page's button: verifies the address and answers a page with the outcome.",
      description:
        'For browsers, which cannot send PUT from a form. The same effect as `PUT /email-verifications/{token}`; every answer is an HTML page.',
      body: schemas.formBody,
      ok: 'The address is verified: a page that says so.',
    },
    complete: {
      summary:
        "Verify an address with its token: the user's `emailVerified` becomes true, and the token and the user's other verification links are used up.",
    },
  });
  return {
    requestEmailVerification: specs.request,
    getEmailVerification: specs.show,
    submitEmailVerificationForm: specs.form,
    verifyEmail: specs.complete,
  };
}
