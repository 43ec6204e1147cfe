/**
 * The identity service's routes, described once: method, path, default level, schemas and docs.
 * The route files bind a handler to each spec; the gateway reads the compiled `api` (dist/api.js)
 * for its policy table. Data only: this file and what it imports neither connect nor start
 * anything, and need nothing but joi and @restgate/shared at run time.
 */
import { defineSpec, type HttpMethod, type RouteSpec, type ServiceApi } from '@restgate/shared/http';
import type Joi from 'joi';
import { emailVerificationSchemas, passwordResetSchemas } from './emailed-links/emailed-link.schemas';
import { providerTokenBody, providerTokenQuery } from './social/social.schemas';
import { codeBody, disableMfaBody, enrolmentBody, mfaSignInBody, recoveryCodesSchema, totpEnrolmentSchema } from './mfa/mfa.schemas';
import { refreshBody, sessionListingSchema, sessionListQuery, sessionTokensSchema } from './accounts/session.schemas';
import { fullUserSchema, ownUserSchema, publicUserSchema, userListingSchema, userSchemas } from './accounts/user.schemas';
import { identityCodes as E } from './errors';

export interface IdentityApiOptions {
  /** PASSWORD_MIN_LENGTH: the password rules in the schemas (and docs) follow it. */
  passwordMinLength: number;
}

/** PASSWORD_MIN_LENGTH's default, for the specs the gateway reads (it needs no schema, only levels). */
const DEFAULT_OPTIONS: IdentityApiOptions = { passwordMinLength: 8 };

const userTags = ['users'];
// The error answers list catalogue entries (./errors): the API docs describe each code with its text.
const validation = { errors: [E.validation_failed] };
const unauthorized = { errors: [E.credential_missing, E.invalid_token] };
const forbidden = { errors: [E.forbidden] };
const notFound = { description: 'Also for a malformed id.', errors: [E.user_not_found] };
const revocationsDown = {
  description: 'The revocation store is unavailable: nothing changed, try again.',
  errors: [E.service_unavailable],
};
const passwordBackoff = {
  description: 'Too many wrong passwords for this account from this address (the back-off), or for this account overall.',
  errors: [E.rate_limited],
};

export const authApi = {
  signIn: defineSpec({
    method: 'post',
    path: '/auth',
    level: 'master+basic',
    noStore: true,
    tags: ['auth'],
    summary: 'Sign in: HTTP Basic e-mail and password (and the master key) open a session: an access token, a refresh token and the user.',
    responses: {
      201: {
        description: "A new session: access token, refresh token, the access token's lifetime, and the user.",
        schema: sessionTokensSchema,
      },
      401: {
        description:
          'One answer for an unknown e-mail and a wrong password. The right password of a user with multi-factor sign-in on is `mfa_required` (RFC 9470), with a member `mfaToken` (single use, 5 minutes) for POST /auth/mfa; no session exists yet.',
        errors: [E.credential_missing, E.master_key_missing, E.basic_required, E.invalid_credentials, E.mfa_required],
      },
      403: {
        description: 'With `REQUIRE_VERIFIED_EMAIL` on, the right password of a user whose e-mail is not verified is `email_unverified`.',
        errors: [E.forbidden, E.email_unverified],
      },
      429: passwordBackoff,
      503: { errors: [E.busy] },
    },
  }),
  refreshSession: defineSpec({
    method: 'post',
    path: '/auth/refresh',
    level: 'public',
    noStore: true,
    tags: ['auth'],
    summary: 'Exchange a refresh token for a new access token and a new refresh token; the one sent is used up.',
    description:
      'The refresh token is the credential (no access token needed). Each refresh token works once, with one exception for retries: presented again within `REFRESH_REUSE_GRACE_SECONDS` (default 10) after its use — two tabs refreshing at once, or a client whose answer was lost — it answers 201 with the same next refresh token as the first answer and a new access token, and the session goes on (a refresh racing the first one waits for its answer). After the grace, presenting a used refresh token ends its whole session (a theft signal), and the answer is 401.',
    schemas: { body: refreshBody },
    responses: {
      201: {
        description: "New tokens for the same session, and the user (for a retry within the grace: the first answer's refresh token).",
        schema: sessionTokensSchema,
      },
      400: validation,
      401: {
        description: 'Also a refresh token used again after the grace (its session has now ended), or one whose user is gone.',
        errors: [E.invalid_refresh_token],
      },
      429: { description: 'Too many refreshes from this address.', errors: [E.rate_limited] },
      503: {
        description: 'The session could not be ended (a reused token) because the revocation store is unavailable.',
        errors: [E.service_unavailable],
      },
    },
  }),
  logout: defineSpec({
    method: 'delete',
    path: '/auth/session',
    level: 'user',
    tags: ['auth'],
    summary: 'Log out: the session of the access token sent ends; its access and refresh tokens stop working at once.',
    responses: {
      204: { description: 'The session has ended.' },
      401: unauthorized,
      503: revocationsDown,
    },
  }),
};

/** What enabling each provider takes, besides naming it in SOCIAL_PROVIDERS. */
const SOCIAL_SETUP: Record<string, string> = {
  facebook:
    'Set `FACEBOOK_APP_ID` and `FACEBOOK_APP_SECRET` (your Facebook app, with Facebook Login) so that only tokens issued to your app sign in; the token needs `email` and `public_profile`.',
  github:
    "Set `GITHUB_CLIENT_ID` and `GITHUB_CLIENT_SECRET` (your GitHub OAuth app) so that only tokens issued to your app sign in (GitHub's token check); the token needs the `user:email` scope.",
  google:
    'Set `GOOGLE_CLIENT_ID` to your OAuth client id(s) so that only tokens issued to them sign in; the token needs the `openid email profile` scopes.',
};

const socialSpec = (provider: string, label: string) =>
  defineSpec({
    method: 'post',
    path: `/auth/${provider}` as const,
    level: 'provider',
    noStore: true,
    tags: ['auth'],
    summary: `Sign in with a ${label} access token: the linked user, else the user with the e-mail ${label} says is verified, else a new user.`,
    description: `Off until the identity service's \`SOCIAL_PROVIDERS\` names \`${provider}\` (a 404 \`route_not_found\` meanwhile). ${SOCIAL_SETUP[provider] ?? ''}`,
    schemas: { body: providerTokenBody, query: providerTokenQuery },
    responses: {
      201: { description: 'A new session, as POST /auth gives.', schema: sessionTokensSchema },
      400: { errors: [E.credential_ambiguous, E.validation_failed] },
      401: {
        description: `The provider is ${label}. A user with multi-factor sign-in on gets \`mfa_required\` with an \`mfaToken\` for POST /auth/mfa, as POST /auth answers.`,
        errors: [E.credential_missing, E.invalid_token, E.provider_token_rejected, E.provider_token_wrong_app, E.mfa_required],
      },
      404: { description: `${label} sign-in is not enabled (\`SOCIAL_PROVIDERS\`).`, errors: [E.route_not_found] },
      409: { errors: [E.provider_already_linked, E.account_email_unverified, E.account_password_unproven] },
      422: { errors: [E.provider_email_missing, E.provider_email_unverified] },
      502: { errors: [E.provider_failed, E.provider_unreachable] },
      504: { errors: [E.provider_timeout] },
    },
  });

/** `POST /auth/<provider>`: a provider that SOCIAL_PROVIDERS does not enable is not served (404). */
export const socialApi = {
  signInWithFacebook: socialSpec('facebook', 'Facebook'),
  signInWithGithub: socialSpec('github', 'GitHub'),
  signInWithGoogle: socialSpec('google', 'Google'),
};

/** `/users/me…` rows come before `/users/:id…` so that "me" is never read as an id. */
export function userApi(options: IdentityApiOptions) {
  const schemas = userSchemas(options);
  const notModified = { description: 'Not modified: If-None-Match names the current ETag.' };
  const preconditionFailed = { errors: [E.precondition_failed] };
  const ifMatch =
    'With `If-Match: <ETag>` (from a GET of the user or an earlier write) it happens only if the user is still at that version; otherwise 412 `precondition_failed` and nothing changes.';

  const update = <const Path extends string>(method: HttpMethod, path: Path) =>
    defineSpec({
      method,
      path,
      level: 'user',
      tags: userTags,
      summary: `${method === 'put' ? 'Replace' : 'Change'} a profile (name, picture); omitted fields stay. The user themself or an admin.`,
      description: ifMatch,
      schemas: { body: schemas.profileBody },
      responses: {
        200: { description: 'The updated user, with its ETag.', schema: fullUserSchema },
        400: validation,
        401: unauthorized,
        403: { errors: [E.forbidden, E.not_your_profile] },
        404: notFound,
        412: preconditionFailed,
      },
    });

  const changePassword = <const Path extends string>(path: Path) =>
    defineSpec({
      method: 'put',
      path,
      level: 'user+basic',
      tags: userTags,
      summary: 'Change your password: your token as `access_token`, and your current e-mail and password as HTTP Basic.',
      description:
        "The token (query or body: the Authorization header carries HTTP Basic) names the account: `:id` must be `me` or its user's id. Every other session of the user ends, and so do the user's password-reset tokens; the session of the token sent stays. Every session opened with the old password is refused from then on, also one a sign-in was opening at that moment.",
      schemas: { body: schemas.passwordBody },
      responses: {
        200: { description: 'The user.', schema: fullUserSchema },
        400: validation,
        401: {
          description: "A Basic e-mail or password that is not the token user's is one answer for both.",
          errors: [E.credential_missing, E.user_token_missing, E.basic_required, E.invalid_credentials],
        },
        403: { description: "The master key instead of a user token, or another user's id.", errors: [E.not_your_password] },
        429: passwordBackoff,
        503: { description: 'When the revocation store is unavailable, nothing changed.', errors: [E.busy, E.service_unavailable] },
      },
    });

  return {
    createUser: defineSpec({
      method: 'post',
      path: '/users',
      level: 'master',
      tags: userTags,
      summary: 'Create a user.',
      schemas: { body: schemas.createUserBody },
      responses: {
        201: { description: 'The new user.', schema: fullUserSchema },
        400: validation,
        401: unauthorized,
        403: { errors: [E.forbidden, E.role_not_grantable] },
        409: { description: '`param` is `email`.', errors: [E.email_taken] },
      },
    }),
    listUsers: defineSpec({
      method: 'get',
      path: '/users',
      level: 'admin',
      tags: userTags,
      summary: 'List users: `q` searches name and e-mail; filters on role, emailVerified, createdAt, email.',
      schemas: { query: schemas.listQuery },
      responses: {
        200: { description: 'A page of users.', schema: userListingSchema },
        304: notModified,
        400: validation,
        401: unauthorized,
        403: forbidden,
      },
    }),
    getOwnUser: defineSpec({
      method: 'get',
      path: '/users/me',
      level: 'user',
      tags: userTags,
      summary: 'The calling user.',
      description: 'Answers a strong `ETag`; with `If-None-Match` naming it, 304 and no body.',
      responses: {
        200: { description: 'The user, with its ETag, and `mfa: { totp }`: whether multi-factor sign-in is on.', schema: ownUserSchema },
        304: notModified,
        401: unauthorized,
        403: forbidden,
        404: notFound,
      },
    }),
    replaceOwnProfile: update('put', '/users/me'),
    changeOwnProfile: update('patch', '/users/me'),
    changeOwnPassword: changePassword('/users/me/password'),
    // `/users/me` is a path of its own (the docs match it before `/users/{id}`), so every method
    // that accepts `me` is declared on it: an admin deleting their own account.
    deleteOwnUser: defineSpec({
      method: 'delete',
      path: '/users/me',
      level: 'admin',
      tags: userTags,
      summary: "Delete the calling admin's own account.",
      description: ifMatch,
      responses: { 204: { description: 'Deleted.' }, 401: unauthorized, 403: forbidden, 404: notFound, 412: preconditionFailed },
    }),
    getUser: defineSpec({
      method: 'get',
      path: '/users/:id',
      level: 'public',
      tags: userTags,
      summary: 'A user, public view.',
      description: 'Answers a strong `ETag`; with `If-None-Match` naming it, 304 and no body.',
      responses: { 200: { description: 'The user, with its ETag.', schema: publicUserSchema }, 304: notModified, 404: notFound },
    }),
    replaceProfile: update('put', '/users/:id'),
    changeProfile: update('patch', '/users/:id'),
    changePassword: changePassword('/users/:id/password'),
    listSessions: defineSpec({
      method: 'get',
      path: '/users/:id/sessions',
      level: 'user',
      tags: userTags,
      summary: "A user's open sessions, newest first (`:id` may be `me`). The user themself or an admin.",
      schemas: { query: sessionListQuery },
      responses: {
        200: { description: 'A page of sessions.', schema: sessionListingSchema },
        400: validation,
        401: unauthorized,
        403: { errors: [E.forbidden, E.not_your_sessions] },
        404: notFound,
      },
    }),
    endSessions: defineSpec({
      method: 'delete',
      path: '/users/:id/sessions',
      level: 'user',
      tags: userTags,
      summary: 'End every session of a user (`:id` may be `me`): their access tokens stop working at once. The user themself or an admin.',
      responses: {
        204: { description: 'Every session has ended.' },
        401: unauthorized,
        403: { errors: [E.forbidden, E.not_your_sessions] },
        404: notFound,
        503: revocationsDown,
      },
    }),
    deleteUser: defineSpec({
      method: 'delete',
      path: '/users/:id',
      level: 'admin',
      tags: userTags,
      summary: 'Delete a user; their sessions end with them.',
      description: ifMatch,
      responses: {
        204: { description: 'Deleted.' },
        401: unauthorized,
        403: forbidden,
        404: notFound,
        412: preconditionFailed,
        503: revocationsDown,
      },
    }),
  };
}

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

/** Multi-factor sign-in: `/users/me/mfa…` before `/users/:id/mfa`, so that "me" is never read as an id. */
export function mfaApi(_options?: IdentityApiOptions) {
  const tags = ['multi-factor sign-in'];
  const off = {
    description: 'Multi-factor sign-in is not configured (`MFA_ENCRYPTION_KEY` unset); or (users) no such user.',
    errors: [E.route_not_found, E.user_not_found],
  };
  const wrongCode = {
    description: "A wrong code counts towards the account's bound on wrong second factors (10 in a row, from any address).",
    errors: [E.credential_missing, E.invalid_token, E.invalid_mfa_code],
  };
  const backoff = {
    description:
      'Too many wrong passwords for this account from this address (the sign-in back-off), or 10 wrong codes in a row for this account from any address: each further check waits, from 1 minute doubling up to a day, until a right code or a password reset.',
    errors: [E.rate_limited],
  };
  // The caller's own second factor: answers carry secrets or codes, and the routes are off without the key.
  const own = { noStore: true, tags };
  const ownRefusals = { 403: forbidden, 404: off };
  return {
    completeMfaSignIn: defineSpec({
      method: 'post',
      path: '/auth/mfa',
      level: 'public',
      noStore: true,
      tags: ['auth', ...tags],
      summary:
        'Finish a sign-in of a user with MFA on: the `mfaToken` of the 401 `mfa_required` and a one-time code (or a recovery code) open the session.',
      description:
        'The `mfaToken` is the credential (no access token): single use (a right code uses it up, and so does its fifth check), bound to its user and to the password it was proven with (a password change or reset, ending all sessions, or 10 wrong codes in a row on the account end it), valid 5 minutes. A code is accepted within one 30 s step of clock drift and never twice. The access token\'s `amr` is `["pwd","otp"]` (`["pwd","mfa"]` after a recovery code; the provider\'s name instead of `pwd` after a social sign-in).',
      schemas: { body: mfaSignInBody },
      responses: {
        201: { description: 'A new session, as POST /auth gives without MFA.', schema: sessionTokensSchema },
        400: validation,
        401: { errors: [E.invalid_mfa_token, E.invalid_mfa_code] },
        404: off,
        429: backoff,
      },
    }),
    startTotpEnrolment: defineSpec({
      method: 'post',
      path: '/users/me/mfa/totp',
      level: 'user',
      ...own,
      summary: 'Start turning on multi-factor sign-in: a new TOTP secret, its `otpauth://` URL and QR code for an authenticator app.',
      description:
        "Needs a fresh proof besides the token: your current `password` in the body, or a session opened within the last 10 minutes (then the body may be empty). The enrolment is pending (sign-in is unchanged) until POST /users/me/mfa/totp/confirm accepts a code of this secret; calling this again replaces a pending secret. Turning MFA on, off, and renewing recovery codes each mail the account's address.",
      schemas: { body: enrolmentBody },
      responses: {
        201: { description: 'The pending enrolment. The secret is shown only now.', schema: totpEnrolmentSchema },
        400: validation,
        401: {
          description: 'An older session without the password is `reauthentication_required`; a wrong password is `invalid_credentials`.',
          errors: [E.credential_missing, E.invalid_token, E.invalid_credentials, E.reauthentication_required],
        },
        429: backoff,
        ...ownRefusals,
        409: { description: 'Turn it off first.', errors: [E.mfa_already_on] },
      },
    }),
    confirmTotpEnrolment: defineSpec({
      method: 'post',
      path: '/users/me/mfa/totp/confirm',
      level: 'user',
      ...own,
      summary: 'Turn multi-factor sign-in on with a code of the pending secret; answers the 10 recovery codes, once.',
      description:
        'From now on POST /auth (and social sign-in) answers 401 `mfa_required` with an `mfaToken` for POST /auth/mfa. Sessions already open go on.',
      schemas: { body: codeBody },
      responses: {
        200: { description: 'MFA is on; the recovery codes, shown only now.', schema: recoveryCodesSchema },
        400: validation,
        401: wrongCode,
        ...ownRefusals,
        409: { errors: [E.mfa_not_pending, E.mfa_already_on] },
        429: backoff,
      },
    }),
    regenerateRecoveryCodes: defineSpec({
      method: 'post',
      path: '/users/me/mfa/recovery-codes',
      level: 'user',
      ...own,
      summary:
        'Replace the recovery codes: 10 new ones, and the old ones stop working. Needs a session opened with a second factor, and a current code.',
      schemas: { body: codeBody },
      responses: {
        201: { description: 'The new recovery codes, shown only now.', schema: recoveryCodesSchema },
        400: validation,
        401: {
          description: 'A session opened without a second factor is `mfa_required`: sign in again with a code.',
          errors: [E.credential_missing, E.invalid_token, E.mfa_required, E.invalid_mfa_code],
        },
        ...ownRefusals,
        409: { errors: [E.mfa_off] },
        429: backoff,
      },
    }),
    disableOwnMfa: defineSpec({
      method: 'delete',
      path: '/users/me/mfa',
      level: 'user+basic',
      ...own,
      summary:
        'Turn multi-factor sign-in off: your token as `access_token`, your e-mail and password as HTTP Basic, and a code or a recovery code.',
      description: 'The recovery codes end with it. Sessions go on. A password reset never turns MFA off; this (or an admin) does.',
      schemas: { body: disableMfaBody },
      responses: {
        204: { description: 'MFA is off: sign-in needs the password only.' },
        400: validation,
        401: { errors: [E.credential_missing, E.user_token_missing, E.basic_required, E.invalid_credentials, E.invalid_mfa_code] },
        ...ownRefusals,
        409: { errors: [E.mfa_off] },
        429: backoff,
        503: { errors: [E.busy] },
      },
    }),
    adminDisableMfa: defineSpec({
      method: 'delete',
      path: '/users/:id/mfa',
      level: 'admin',
      tags: [...tags, ...userTags],
      summary:
        "Turn off a user's multi-factor sign-in (an admin, for a user who lost their authenticator and recovery codes); every session of the user ends.",
      responses: {
        204: { description: "MFA is off and the user's sessions have ended: they sign in with their password." },
        401: {
          description: 'With `MFA_REQUIRED_ROLES` naming `admin`, an admin token without a second factor is `mfa_required`.',
          errors: [E.credential_missing, E.invalid_token, E.mfa_required],
        },
        403: {
          description: "An admin's own MFA goes off through DELETE /users/me/mfa only.",
          errors: [E.forbidden, E.not_admin, E.own_mfa_by_admin],
        },
        404: notFound,
        409: { description: 'Nothing changed.', errors: [E.mfa_off] },
        503: {
          description: 'The revocation store is unavailable: the sessions could not be ended; try again.',
          errors: [E.service_unavailable],
        },
      },
    }),
  };
}

/** Every route of the service, in the order it mounts them. */
export function identityApi(options: IdentityApiOptions) {
  return {
    ...authApi,
    ...socialApi,
    ...userApi(options),
    ...mfaApi(options),
    ...passwordResetApi(options),
    ...emailVerificationApi(options),
  };
}

/** What the gateway reads: every route with its default level. */
export const api: ServiceApi = identityApi(DEFAULT_OPTIONS);
