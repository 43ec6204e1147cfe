/**
 * The identity service's routes, described once: method, path, default level, schemas and docs.
 * The route files bind a handler to each spec; the gateway reads the compiled `api` (dist/api.js)
 * for its policy table. Data only: this file and what it imports neither connect nor start
 * anything, and need nothing but joi and @restgate/shared at run time.
 */
import { defineSpec, type HttpMethod, type ServiceApi } from '@restgate/shared/http';
import { passwordResetSchemas, passwordResetViewSchema, resetAcceptedSchema } from './http/password-reset.schemas';
import { emailVerificationSchemas, emailVerificationViewSchema } from './http/email-verification.schemas';
import { providerTokenBody, providerTokenQuery } from './http/social.schemas';
import { codeBody, disableMfaBody, mfaSignInBody, recoveryCodesSchema, totpEnrolmentSchema } from './http/mfa.schemas';
import { refreshBody, sessionListingSchema, sessionListQuery, sessionTokensSchema } from './http/session.schemas';
import { fullUserSchema, ownUserSchema, publicUserSchema, userListingSchema, userSchemas } from './http/user.schemas';

export interface IdentityApiOptions {
  /** PASSWORD_MIN_LENGTH: the password rules in the schemas (and docs) follow it. */
  passwordMinLength: number;
}

/** PASSWORD_MIN_LENGTH's default, for the specs the gateway reads (it needs no schema, only levels). */
const DEFAULT_OPTIONS: IdentityApiOptions = { passwordMinLength: 8 };

const userTags = ['users'];
const validation = { description: 'Invalid body or query; `param` names the first failing field.' };
const unauthorized = { description: 'No valid credential.' };
const forbidden = { description: 'A valid credential that may not do this.' };
const notFound = { description: 'No such user (also for a malformed id).' };

export const authApi = {
  signIn: defineSpec({
    method: 'post',
    path: '/auth',
    level: 'master+basic',
    noStore: true,
    tags: ['auth'],
    summary: 'Sign in: HTTP Basic e-mail and password (and the master key) open a session: an access token, a refresh token and the user.',
    responses: {
      201: { description: 'A new session: access token, refresh token, the access token\'s lifetime, and the user.', schema: sessionTokensSchema },
      401: {
        description:
          'No master key, or missing or wrong Basic credentials (one answer for an unknown e-mail and a wrong password). Or the right password of a user with multi-factor sign-in on: `mfa_required`, with `WWW-Authenticate: Bearer realm="restgate", error="insufficient_user_authentication"` (RFC 9470) and a member `mfaToken` (single use, 5 minutes) for POST /auth/mfa; no session exists yet.',
      },
      403: {
        description:
          'A credential other than the master key; or, with `REQUIRE_VERIFIED_EMAIL` on, the right password of a user whose e-mail is not verified: `email_unverified` (open the link in the verification mail, or ask for a new one with POST /email-verifications).',
      },
      429: { description: 'Too many wrong passwords for this account from this address (the back-off), or for this account overall.' },
      503: { description: 'Too many password checks in progress: try again after `Retry-After`.' },
    },
  }),
  refreshSession: defineSpec<{ refreshToken: string }>({
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
      201: { description: 'New tokens for the same session, and the user (for a retry within the grace: the first answer\'s refresh token).', schema: sessionTokensSchema },
      400: validation,
      401: {
        description:
          'The refresh token is unknown, used after the grace (its session has now ended), expired, or its session or user is gone: `invalid_refresh_token`.',
      },
      429: { description: 'Too many refreshes from this address.' },
      503: { description: 'The session could not be ended (a reused token) because the revocation store is unavailable.' },
    },
  }),
  logout: defineSpec({
    method: 'delete',
    path: '/auth/session',
    level: 'user',
    tags: ['auth'],
    summary: "Log out: the session of the access token sent ends; its access and refresh tokens stop working at once.",
    responses: {
      204: { description: 'The session has ended.' },
      401: unauthorized,
      503: { description: 'The revocation store is unavailable: nothing changed, try again.' },
    },
  }),
};

type TokenInput = { access_token?: string | string[] };

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
  defineSpec<TokenInput, TokenInput>({
    method: 'post',
    path: `/auth/${provider}`,
    level: 'provider',
    noStore: true,
    tags: ['auth'],
    summary: `Sign in with a ${label} access token: the linked user, else the user with the e-mail ${label} says is verified, else a new user.`,
    description: `Off until the identity service's \`SOCIAL_PROVIDERS\` names \`${provider}\` (a 404 \`route_not_found\` meanwhile). ${SOCIAL_SETUP[provider] ?? ''}`,
    schemas: { body: providerTokenBody, query: providerTokenQuery },
    responses: {
      201: { description: 'A new session, as POST /auth gives.', schema: sessionTokensSchema },
      400: { description: 'The access token given in more than one place, or an invalid body or query.' },
      401: {
        description: `No access token, or ${label} refused it, or it was issued to another app. Or the user has multi-factor sign-in on: \`mfa_required\` with an \`mfaToken\` for POST /auth/mfa, as POST /auth answers.`,
      },
      404: { description: `${label} sign-in is not enabled (\`SOCIAL_PROVIDERS\`): \`route_not_found\`.` },
      409: {
        description: `The account with this e-mail is already linked to another ${label} identity (\`provider_already_linked\`), or its e-mail was never verified (\`account_email_unverified\`), or its password was chosen at sign-up and never proven by the address's owner (\`account_password_unproven\`): reset its password, then sign in again.`,
      },
      422: {
        description: `${label} shared no e-mail (\`provider_email_missing\`) or does not say it is verified (\`provider_email_unverified\`).`,
      },
      502: { description: `${label} failed or could not be reached.` },
      504: { description: `${label} did not answer in time.` },
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
  const preconditionFailed = { description: 'If-Match does not name the current ETag (`precondition_failed`): nothing changed.' };
  const ifMatch =
    'With `If-Match: <ETag>` (from a GET of the user or an earlier write) it happens only if the user is still at that version; otherwise 412 `precondition_failed` and nothing changes.';

  const update = (method: HttpMethod, path: string) =>
    defineSpec<{ name?: string; picture?: string }, unknown, { id?: string }>({
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
        403: forbidden,
        404: notFound,
        412: preconditionFailed,
      },
    });

  const changePassword = (path: string) =>
    defineSpec<{ password: string }, unknown, { id?: string }>({
      method: 'put',
      path,
      level: 'user+basic',
      tags: userTags,
      summary: "Change your password: your token as `access_token`, and your current e-mail and password as HTTP Basic.",
      description:
        "The token (query or body: the Authorization header carries HTTP Basic) names the account: `:id` must be `me` or its user's id. Every other session of the user ends, and so do the user's password-reset tokens; the session of the token sent stays. Every session opened with the old password is refused from then on, also one a sign-in was opening at that moment.",
      schemas: { body: schemas.passwordBody },
      responses: {
        200: { description: 'The user.', schema: fullUserSchema },
        400: validation,
        401: {
          description:
            "No user token (`credential_missing`, `user_token_missing`), no HTTP Basic (`basic_required`), or a Basic e-mail or password that is not the token user's (`invalid_credentials`, one answer for both).",
        },
        403: { description: "The master key instead of a user token, or another user's id: `not_your_password`." },
        429: { description: 'Too many wrong passwords for this account from this address (the back-off), or for this account overall.' },
        503: { description: 'Too many password checks in progress (try again after `Retry-After`), or the revocation store is unavailable (nothing changed).' },
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
        403: forbidden,
        409: { description: 'The e-mail is already registered (`param: "email"`).' },
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
    deleteOwnUser: defineSpec<unknown, unknown, { id?: string }>({
      method: 'delete',
      path: '/users/me',
      level: 'admin',
      tags: userTags,
      summary: 'Delete the calling admin\'s own account.',
      description: ifMatch,
      responses: { 204: { description: 'Deleted.' }, 401: unauthorized, 403: forbidden, 404: notFound, 412: preconditionFailed },
    }),
    getUser: defineSpec<unknown, unknown, { id: string }>({
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
    listSessions: defineSpec<unknown, { page: number; limit: number }, { id: string }>({
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
        403: forbidden,
        404: notFound,
      },
    }),
    endSessions: defineSpec<unknown, unknown, { id: string }>({
      method: 'delete',
      path: '/users/:id/sessions',
      level: 'user',
      tags: userTags,
      summary: "End every session of a user (`:id` may be `me`): their access tokens stop working at once. The user themself or an admin.",
      responses: {
        204: { description: 'Every session has ended.' },
        401: unauthorized,
        403: forbidden,
        404: notFound,
        503: { description: 'The revocation store is unavailable: nothing changed, try again.' },
      },
    }),
    deleteUser: defineSpec<unknown, unknown, { id: string }>({
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
        503: { description: 'The revocation store is unavailable: nothing changed, try again.' },
      },
    }),
  };
}

export function passwordResetApi(options: IdentityApiOptions) {
  const schemas = passwordResetSchemas(options);
  const tags = ['password resets'];
  const deadToken = { description: 'The token is unknown, used, expired or malformed (one answer for all).' };
  return {
    requestPasswordReset: defineSpec({
      method: 'post',
      path: '/password-resets',
      level: 'master',
      tags,
      summary:
        'Ask for a password reset mail. Answered once the request is stored, before the mail goes out; the same answer whether or not the e-mail is registered.',
      schemas: { body: schemas.requestBody },
      responses: {
        202: { description: 'Accepted (also for an unknown e-mail, which gets no mail).', schema: resetAcceptedSchema },
        400: { description: 'Invalid body; `param` names the first failing field.' },
        401: { description: 'No credential.' },
        403: { description: 'A credential other than the master key.' },
      },
    }),
    getPasswordReset: defineSpec<unknown, unknown, { token: string }>({
      method: 'get',
      path: '/password-resets/:token',
      secretParams: ['token'],
      noStore: true,
      level: 'public',
      tags,
      summary: 'Whose password a reset token resets; a browser (`Accept: text/html`) gets the reset page instead.',
      description:
        'The link in the reset mail. JSON clients get `{ user }`. A request whose `Accept` prefers `text/html` gets a page with a form (new password, twice) that posts to `POST /password-resets/{token}`; a dead token gets a page saying so, with status 404.',
      responses: {
        200: { description: 'The user the token belongs to (JSON), or the reset form (HTML).', schema: passwordResetViewSchema, html: true },
        404: { ...deadToken, html: true },
      },
    }),
    submitPasswordResetForm: defineSpec<{ password?: string; confirmation?: string }, unknown, { token: string }>({
      method: 'post',
      path: '/password-resets/:token',
      secretParams: ['token'],
      noStore: true,
      level: 'public',
      tags,
      summary: "The reset page's form: sets the new password and answers a page with the outcome.",
      description:
        'For browsers, which cannot send PUT from a form: `application/x-www-form-urlencoded` with `password` and `confirmation`. The same rules and effect as `PUT /password-resets/{token}`; every answer is an HTML page. API clients use the PUT.',
      schemas: { body: schemas.formBody },
      responses: {
        200: { description: 'The password is set: a page that says so.', html: true },
        400: { description: 'The passwords differ or break the rules: the form again, saying why; the token stays valid.', html: true },
        404: { ...deadToken, html: true },
      },
    }),
    completePasswordReset: defineSpec<{ password: string }, unknown, { token: string }>({
      method: 'put',
      path: '/password-resets/:token',
      secretParams: ['token'],
      noStore: true,
      level: 'public',
      tags,
      summary: "Set a new password with a reset token. The token is used up, and so are the user's other reset tokens and every session.",
      schemas: { body: schemas.passwordBody },
      responses: {
        200: { description: 'The user.', schema: fullUserSchema },
        400: { description: 'Invalid password (`param: "password"`): the token stays valid.' },
        404: deadToken,
      },
    }),
  };
}

export function emailVerificationApi(_options?: IdentityApiOptions) {
  const schemas = emailVerificationSchemas();
  const tags = ['e-mail verification'];
  const deadToken = { description: 'The token is unknown, used, expired or malformed (one answer for all).' };
  return {
    requestEmailVerification: defineSpec({
      method: 'post',
      path: '/email-verifications',
      level: 'master',
      tags,
      summary:
        'Ask for a new verification link for an address. Answered once the request is stored; the same answer whether or not the e-mail is registered or already verified.',
      description:
        'Sign-up sends the first link; this sends a fresh one (the earlier links of the user stop working). Only a registered, unverified address gets a mail, and at most `RESET_MAILS_PER_EMAIL` of them per window.',
      schemas: { body: schemas.requestBody },
      responses: {
        202: { description: 'Accepted (also for an unknown or verified e-mail, which gets no mail).', schema: schemas.acceptedSchema },
        400: { description: 'Invalid body; `param` names the first failing field.' },
        401: { description: 'No credential.' },
        403: { description: 'A credential other than the master key.' },
      },
    }),
    getEmailVerification: defineSpec<unknown, unknown, { token: string }>({
      method: 'get',
      path: '/email-verifications/:token',
      secretParams: ['token'],
      noStore: true,
      level: 'public',
      tags,
      summary: 'Whose address a verification token proves; a browser (`Accept: text/html`) gets the verification page instead.',
      description:
        'The link in the verification mail. Reading it changes nothing (mail scanners open links): JSON clients get `{ user }`, and a request whose `Accept` prefers `text/html` gets a page with one button that posts to `POST /email-verifications/{token}`; a dead token gets a page saying so, with status 404.',
      responses: {
        200: { description: 'The user the token belongs to (JSON), or the page with the button (HTML).', schema: emailVerificationViewSchema, html: true },
        404: { ...deadToken, html: true },
      },
    }),
    submitEmailVerificationForm: defineSpec<Record<string, never>, unknown, { token: string }>({
      method: 'post',
      path: '/email-verifications/:token',
      secretParams: ['token'],
      noStore: true,
      level: 'public',
      tags,
      summary: "The verification page's button: verifies the address and answers a page with the outcome.",
      description: 'For browsers, which cannot send PUT from a form. The same effect as `PUT /email-verifications/{token}`; every answer is an HTML page.',
      schemas: { body: schemas.formBody },
      responses: {
        200: { description: 'The address is verified: a page that says so.', html: true },
        404: { ...deadToken, html: true },
      },
    }),
    verifyEmail: defineSpec<unknown, unknown, { token: string }>({
      method: 'put',
      path: '/email-verifications/:token',
      secretParams: ['token'],
      noStore: true,
      level: 'public',
      tags,
      summary: "Verify an address with its token: the user's `emailVerified` becomes true, and the token and the user's other verification links are used up.",
      responses: {
        200: { description: 'The user.', schema: fullUserSchema },
        404: deadToken,
      },
    }),
  };
}

/** Multi-factor sign-in: `/users/me/mfa…` before `/users/:id/mfa`, so that "me" is never read as an id. */
export function mfaApi(_options?: IdentityApiOptions) {
  const tags = ['multi-factor sign-in'];
  const off = { description: 'Multi-factor sign-in is not configured (`MFA_ENCRYPTION_KEY` unset): `route_not_found`; or (users) no such user.' };
  const wrongCode = {
    description:
      'No valid credential, or the code is wrong or already used: `invalid_mfa_code` (counted in the sign-in back-off like a wrong password).',
  };
  const backoff = { description: 'Too many wrong passwords or codes for this account from this address (the sign-in back-off).' };
  return {
    completeMfaSignIn: defineSpec<{ mfaToken: string; code?: string; recoveryCode?: string }>({
      method: 'post',
      path: '/auth/mfa',
      level: 'public',
      noStore: true,
      tags: ['auth', ...tags],
      summary: 'Finish a sign-in of a user with MFA on: the `mfaToken` of the 401 `mfa_required` and a one-time code (or a recovery code) open the session.',
      description:
        'The `mfaToken` is the credential (no access token): single use (a right code uses it up; a wrong one does not), bound to its user, valid 5 minutes. A code is accepted within one 30 s step of clock drift and never twice. The access token\'s `amr` is `["pwd","otp"]` (`["pwd","mfa"]` after a recovery code; the provider\'s name instead of `pwd` after a social sign-in).',
      schemas: { body: mfaSignInBody },
      responses: {
        201: { description: 'A new session, as POST /auth gives without MFA.', schema: sessionTokensSchema },
        400: validation,
        401: {
          description: 'The `mfaToken` is unknown, used or expired (`invalid_mfa_token`: sign in again), or the code is wrong or already used (`invalid_mfa_code`).',
        },
        404: off,
        429: backoff,
      },
    }),
    startTotpEnrolment: defineSpec({
      method: 'post',
      path: '/users/me/mfa/totp',
      level: 'user',
      noStore: true,
      tags,
      summary: 'Start turning on multi-factor sign-in: a new TOTP secret, its `otpauth://` URL and QR code for an authenticator app.',
      description:
        'The enrolment is pending (sign-in is unchanged) until POST /users/me/mfa/totp/confirm accepts a code of this secret; calling this again replaces a pending secret.',
      responses: {
        201: { description: 'The pending enrolment. The secret is shown only now.', schema: totpEnrolmentSchema },
        401: unauthorized,
        403: forbidden,
        404: off,
        409: { description: 'MFA is already on: `mfa_already_on` (turn it off first).' },
      },
    }),
    confirmTotpEnrolment: defineSpec<{ code: string }>({
      method: 'post',
      path: '/users/me/mfa/totp/confirm',
      level: 'user',
      noStore: true,
      tags,
      summary: 'Turn multi-factor sign-in on with a code of the pending secret; answers the 10 recovery codes, once.',
      description: 'From now on POST /auth (and social sign-in) answers 401 `mfa_required` with an `mfaToken` for POST /auth/mfa. Sessions already open go on.',
      schemas: { body: codeBody },
      responses: {
        200: { description: 'MFA is on; the recovery codes, shown only now.', schema: recoveryCodesSchema },
        400: validation,
        401: wrongCode,
        403: forbidden,
        404: off,
        409: { description: 'No enrolment is pending (`mfa_not_pending`), or MFA is already on (`mfa_already_on`).' },
        429: backoff,
      },
    }),
    regenerateRecoveryCodes: defineSpec<{ code: string }>({
      method: 'post',
      path: '/users/me/mfa/recovery-codes',
      level: 'user',
      noStore: true,
      tags,
      summary: 'Replace the recovery codes: 10 new ones, and the old ones stop working. Needs a session opened with a second factor, and a current code.',
      schemas: { body: codeBody },
      responses: {
        201: { description: 'The new recovery codes, shown only now.', schema: recoveryCodesSchema },
        400: validation,
        401: {
          description:
            'No valid credential; a session opened without a second factor (`mfa_required`, with `WWW-Authenticate: Bearer error="insufficient_user_authentication"`: sign in again with a code); or a wrong or used code (`invalid_mfa_code`).',
        },
        403: forbidden,
        404: off,
        409: { description: 'MFA is not on: `mfa_off`.' },
        429: backoff,
      },
    }),
    disableOwnMfa: defineSpec<{ code?: string; recoveryCode?: string }>({
      method: 'delete',
      path: '/users/me/mfa',
      level: 'user+basic',
      noStore: true,
      tags,
      summary: 'Turn multi-factor sign-in off: your token as `access_token`, your e-mail and password as HTTP Basic, and a code or a recovery code.',
      description: 'The recovery codes end with it. Sessions go on. A password reset never turns MFA off; this (or an admin) does.',
      schemas: { body: disableMfaBody },
      responses: {
        204: { description: 'MFA is off: sign-in needs the password only.' },
        400: validation,
        401: {
          description:
            'No user token, no HTTP Basic, a Basic e-mail or password that is not the token user\'s (`invalid_credentials`), or a wrong or used code (`invalid_mfa_code`).',
        },
        403: forbidden,
        404: off,
        409: { description: 'MFA is not on: `mfa_off`.' },
        429: backoff,
        503: { description: 'Too many password checks in progress: try again after `Retry-After`.' },
      },
    }),
    adminDisableMfa: defineSpec<unknown, unknown, { id: string }>({
      method: 'delete',
      path: '/users/:id/mfa',
      level: 'admin',
      tags: [...tags, ...userTags],
      summary: "Turn off a user's multi-factor sign-in (an admin, for a user who lost their authenticator and recovery codes); every session of the user ends.",
      responses: {
        204: { description: "MFA is off and the user's sessions have ended: they sign in with their password." },
        401: { description: 'No valid credential; or, with `MFA_REQUIRED_ROLES` naming `admin`, an admin token without a second factor (`mfa_required`).' },
        403: forbidden,
        404: notFound,
        409: { description: 'MFA is not on for this user: `mfa_off` (nothing changed).' },
        503: { description: 'The revocation store is unavailable: the sessions could not be ended; try again.' },
      },
    }),
  };
}

/** Every route of the service, in the order it mounts them. */
export function identityApi(options: IdentityApiOptions) {
  return { ...authApi, ...socialApi, ...userApi(options), ...mfaApi(options), ...passwordResetApi(options), ...emailVerificationApi(options) };
}

/** What the gateway reads: every route with its default level. */
export const api: ServiceApi = identityApi(DEFAULT_OPTIONS);
