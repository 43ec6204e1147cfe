import { AppError, CHALLENGES, errorCatalogue, errors, problem, sharedErrorCatalogue, type ErrorEntry } from '@restgate/shared';

/**
 * The identity service's own error codes, on top of `sharedErrorCatalogue`: what each answers
 * and, as its default detail, what it means. Route specs list these entries for their error
 * responses, and docs/errors.md is generated from them.
 */
export const identityErrorCatalogue = errorCatalogue({
  email_taken: { status: 409, title: 'Conflict', detail: 'This e-mail is already registered.' },
  user_not_found: { status: 404, title: 'Not found', detail: 'No such user.' },
  not_your_profile: { status: 403, title: 'Forbidden', detail: 'You may change only your own profile.' },
  not_your_password: { status: 403, title: 'Forbidden', detail: "A user token changes only its own user's password." },
  not_your_sessions: { status: 403, title: 'Forbidden', detail: "Only the user themself or an admin may see or end a user's sessions." },
  role_not_grantable: {
    status: 403,
    title: 'Forbidden',
    detail: 'This caller may not create an admin (ADMIN_SIGN_UP says who may: the master key or an admin, only an admin, or no one).',
  },
  not_admin: { status: 403, title: 'Forbidden', detail: 'Only an admin may turn off the MFA of a user.' },
  own_mfa_by_admin: {
    status: 403,
    title: 'Forbidden',
    detail: 'An admin turns off their own MFA as every user does: DELETE /users/me/mfa, with the password and a code.',
  },
  reauthentication_required: {
    status: 401,
    title: 'Unauthorized',
    detail:
      'Adding a second factor needs a fresh proof: send the password as HTTP Basic with the token, or sign in again (a session opened within the last 10 minutes).',
    // RFC 9470: the authentication is too old for this (max_age in seconds).
    headers: { 'WWW-Authenticate': 'Bearer realm="restgate", error="insufficient_user_authentication", max_age=600' },
  },
  email_unverified: {
    status: 403,
    title: 'Forbidden',
    detail:
      'This e-mail address is not verified yet. Open the link in the verification mail sent to it, or ask for a new link with POST /email-verifications { email } (master key).',
  },
  invalid_refresh_token: {
    status: 401,
    title: 'Unauthorized',
    detail: 'The refresh token is not valid: it is unknown, used, expired, or its session has ended. Sign in again.',
    headers: CHALLENGES.tokenInvalid,
  },
  invalid_mfa_code: {
    status: 401,
    title: 'Unauthorized',
    detail: 'The code is wrong or was already used. Use the current code of your authenticator app, or an unused recovery code.',
    headers: CHALLENGES.moreFactors,
  },
  invalid_mfa_token: {
    status: 401,
    title: 'Unauthorized',
    detail: 'The mfaToken is unknown, used or expired (it lives 5 minutes). Sign in again.',
    headers: CHALLENGES.tokenInvalid,
  },
  mfa_already_on: { status: 409, title: 'Conflict', detail: 'Multi-factor sign-in is already on for this user.' },
  mfa_not_pending: { status: 409, title: 'Conflict', detail: 'No enrolment is pending: start one with POST /users/me/mfa/totp.' },
  mfa_off: { status: 409, title: 'Conflict', detail: 'Multi-factor sign-in is not on for this user.' },
  password_reset_not_found: {
    status: 404,
    title: 'Not found',
    detail: 'No such password reset: the link is unknown, used or expired.',
  },
  email_verification_not_found: {
    status: 404,
    title: 'Not found',
    detail: 'No such e-mail verification: the link is unknown, used or expired.',
  },
  busy: {
    status: 503,
    title: 'Service unavailable',
    detail: 'Too many password checks in progress. Try again shortly.',
    headers: { 'Retry-After': '1' },
    expected: true,
  },
  client_closed: {
    status: 499,
    title: 'Client closed request',
    detail: 'The client went away.',
    meaning: 'The client closed the connection before its password was checked; nobody reads this answer (it shows in logs).',
  },
  provider_token_rejected: {
    status: 401,
    title: 'Unauthorized',
    detail: 'The social provider did not accept the access token.',
    headers: CHALLENGES.tokenInvalid,
  },
  provider_token_wrong_app: {
    status: 401,
    title: 'Unauthorized',
    detail: "The provider's access token was not issued to this application.",
    headers: CHALLENGES.tokenInvalid,
  },
  provider_unreachable: { status: 502, title: 'Bad gateway', detail: 'The social provider could not be reached. Try again shortly.' },
  provider_failed: { status: 502, title: 'Bad gateway', detail: 'The social provider did not answer as expected. Try again shortly.' },
  provider_timeout: { status: 504, title: 'Gateway timeout', detail: 'The social provider did not answer in time. Try again shortly.' },
  provider_email_missing: {
    status: 422,
    title: 'No usable e-mail',
    detail: 'The provider did not share a usable e-mail address for this account, and an account needs one.',
  },
  provider_email_unverified: {
    status: 422,
    title: 'E-mail not verified',
    detail:
      "The provider does not say that this account's e-mail address is verified, so it can neither be linked to an account nor start one.",
  },
  account_email_unverified: {
    status: 409,
    title: 'Conflict',
    detail:
      'An account with this e-mail exists, but its address was never verified, so the provider cannot be linked to it: reset its password (POST /password-resets), then sign in with the provider again.',
  },
  account_password_unproven: {
    status: 409,
    title: 'Conflict',
    detail:
      'An account with this e-mail exists with a password chosen at sign-up, which proves nothing about who chose it, so the provider cannot be linked to it yet: reset its password (POST /password-resets), then sign in with the provider again.',
  },
  provider_already_linked: {
    status: 409,
    title: 'Conflict',
    detail: 'The account with this e-mail is already linked to another identity of this provider.',
  },
} as const satisfies Record<string, ErrorEntry>);

/** Every code identity answers: shared's and its own. Route specs pick their error answers from here. */
export const identityCodes = { ...sharedErrorCatalogue, ...identityErrorCatalogue };

const E = identityErrorCatalogue;

/** The identity service's errors, on top of the shared factories. */
export const identityErrors = {
  emailTaken: (): AppError => errors.conflict('email', E.email_taken.detail, E.email_taken),
  userNotFound: (): AppError => problem(E.user_not_found),
  /** One answer for an unknown e-mail, a wrong password and a missing or malformed Basic header. */
  wrongCredentials: (): AppError => errors.basicUnauthorized(),
  notYourProfile: (): AppError => problem(E.not_your_profile),
  notYourPassword: (): AppError => problem(E.not_your_password),
  roleNotGrantable: (): AppError => problem(E.role_not_grantable),
  notAdmin: (): AppError => problem(E.not_admin),
  ownMfaByAdmin: (): AppError => problem(E.own_mfa_by_admin),
  /** An access token alone does not add a factor: the password, or a session opened recently. */
  reauthenticationRequired: (): AppError => problem(E.reauthentication_required),
  needsUser: (): AppError => errors.unauthorized('"me" needs a user token.', false),
  /** Every hashing worker is busy and the queue is full: come back shortly rather than wait. */
  hashQueueFull: (): AppError => problem(E.busy),
  /** The client closed the connection before its password was checked; nobody reads this answer. */
  clientGone: (): AppError => problem(E.client_closed),
  /** One answer for an unknown, used, expired or malformed reset token. */
  resetNotFound: (): AppError => problem(E.password_reset_not_found),
  /** One answer for an unknown, used, expired or malformed verification token. */
  verificationNotFound: (): AppError => problem(E.email_verification_not_found),
  /** REQUIRE_VERIFIED_EMAIL is on and the address is not proven yet: the password was right. */
  emailUnverified: (): AppError => problem(E.email_unverified),
  /** One answer for an unknown, used, expired or ended refresh token (a used one also ends its session). */
  refreshTokenInvalid: (): AppError => problem(E.invalid_refresh_token),
  /** A user principal without a session: only a session's access token can log out. */
  noSession: (): AppError => errors.unauthorized('This needs an access token from a session (POST /auth).', true),
  notYourSessions: (): AppError => problem(E.not_your_sessions),
  /** Ending a session could not be recorded for the gateways: nothing changed, try again. */
  revocationsUnavailable(cause?: unknown): AppError {
    return errors.unavailable(
      'Sessions cannot be ended right now (the revocation store is unavailable). Nothing changed; try again shortly.',
      cause,
    );
  },
  /** A one-time or recovery code that is wrong, used, or of another secret (one answer for all). */
  wrongMfaCode: (): AppError => problem(E.invalid_mfa_code),
  /** One answer for an unknown, used or expired `mfaToken`. */
  mfaTokenInvalid: (): AppError => problem(E.invalid_mfa_token),
  mfaAlreadyOn: (): AppError => problem(E.mfa_already_on),
  mfaNotPending: (): AppError => problem(E.mfa_not_pending),
  mfaOff: (): AppError => problem(E.mfa_off),
};
