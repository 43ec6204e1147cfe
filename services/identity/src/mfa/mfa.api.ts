/**
 * Multi-factor sign-in's routes.
 * Data only: neither connects nor starts anything (the gateway reads the specs through src/api.ts).
 */
import { defineSpec } from '@restgate/shared/http';
import { forbidden, notFound, userTags, validation, type IdentityApiOptions } from '../accounts/api-fragments';
import { sessionTokensSchema } from '../accounts/session.schemas';
import { identityCodes as E } from '../errors';
import { codeBody, disableMfaBody, enrolmentBody, mfaSignInBody, recoveryCodesSchema, totpEnrolmentSchema } from './mfa.schemas';

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
