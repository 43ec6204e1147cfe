/**
 * Sign-in, sessions and users: the accounts core's routes, described once (method, path, default level, schemas, docs).
 * Data only: neither connects nor starts anything (the gateway reads the specs through src/api.ts).
 */
import { defineSpec, type HttpMethod } from '@restgate/shared/http';
import { identityCodes as E } from '../errors';
import {
  forbidden,
  notFound,
  passwordBackoff,
  revocationsDown,
  unauthorized,
  userTags,
  validation,
  type IdentityApiOptions,
} from './api-fragments';
import { refreshBody, sessionListingSchema, sessionListQuery, sessionTokensSchema } from './session.schemas';
import { fullUserSchema, ownUserSchema, publicUserSchema, userListingSchema, userSchemas } from './user.schemas';

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
