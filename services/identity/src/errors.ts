import { AppError, errors } from '@restgate/shared';

/** The identity service's own errors, on top of the shared catalogue. */
export const identityErrors = {
  emailTaken(): AppError {
    return errors.conflict('email', 'This e-mail is already registered.', 'email_taken');
  },
  userNotFound(): AppError {
    return errors.notFound('No such user.', 'user_not_found');
  },
  /** One answer for an unknown e-mail, a wrong password and a missing or malformed Basic header. */
  wrongCredentials(): AppError {
    return errors.basicUnauthorized('Wrong e-mail or password.', 'invalid_credentials');
  },
  notYourProfile(): AppError {
    return errors.forbidden('You may change only your own profile.', 'not_your_profile');
  },
  notYourPassword(): AppError {
    return errors.forbidden("A user token changes only its own user's password.", 'not_your_password');
  },
  roleNotGrantable(): AppError {
    return errors.forbidden('Only the master key or an admin may create an admin.', 'role_not_grantable');
  },
  needsUser(): AppError {
    return errors.unauthorized('"me" needs a user token.', false);
  },
  /** Every hashing worker is busy and the queue is full: come back shortly rather than wait. */
  hashQueueFull(): AppError {
    return new AppError({
      code: 'busy',
      status: 503,
      title: 'Service unavailable',
      detail: 'Too many password checks in progress. Try again shortly.',
      headers: { 'Retry-After': '1' },
      expected: true,
    });
  },
  /** The client closed the connection before its password was checked; nobody reads this answer. */
  clientGone(): AppError {
    return new AppError({ code: 'client_closed', status: 499, title: 'Client closed request', detail: 'The client went away.' });
  },
  /** One answer for an unknown, used, expired or malformed reset token. */
  resetNotFound(): AppError {
    return errors.notFound('No such password reset: the link is unknown, used or expired.', 'password_reset_not_found');
  },
  /** One answer for an unknown, used, expired or malformed verification token. */
  verificationNotFound(): AppError {
    return errors.notFound('No such e-mail verification: the link is unknown, used or expired.', 'email_verification_not_found');
  },
  /** REQUIRE_VERIFIED_EMAIL is on and the address is not proven yet: the password was right. */
  emailUnverified(): AppError {
    return errors.forbidden(
      'This e-mail address is not verified yet. Open the link in the verification mail sent to it, or ask for a new link with POST /email-verifications { email } (master key).',
      'email_unverified',
    );
  },
  /** One answer for an unknown, used, expired or ended refresh token (a used one also ends its session). */
  refreshTokenInvalid(): AppError {
    return errors.unauthorized(
      'The refresh token is not valid: it is unknown, used, expired, or its session has ended. Sign in again.',
      true,
      'invalid_refresh_token',
    );
  },
  /** A user principal without a session: only a session's access token can log out. */
  noSession(): AppError {
    return errors.unauthorized('This needs an access token from a session (POST /auth).', true);
  },
  notYourSessions(): AppError {
    return errors.forbidden("Only the user themself or an admin may see or end a user's sessions.", 'not_your_sessions');
  },
  /** Ending a session could not be recorded for the gateways: nothing changed, try again. */
  revocationsUnavailable(cause?: unknown): AppError {
    return errors.unavailable(
      'Sessions cannot be ended right now (the revocation store is unavailable). Nothing changed; try again shortly.',
      cause,
    );
  },
  /** A one-time or recovery code that is wrong, used, or of another secret (one answer for all). */
  wrongMfaCode(): AppError {
    return new AppError({
      code: 'invalid_mfa_code',
      status: 401,
      title: 'Unauthorized',
      detail: 'The code is wrong or was already used. Use the current code of your authenticator app, or an unused recovery code.',
      headers: { 'WWW-Authenticate': 'Bearer realm="restgate", error="insufficient_user_authentication"' },
    });
  },
  /** One answer for an unknown, used or expired `mfaToken`. */
  mfaTokenInvalid(): AppError {
    return new AppError({
      code: 'invalid_mfa_token',
      status: 401,
      title: 'Unauthorized',
      detail: 'The mfaToken is unknown, used or expired (it lives 5 minutes). Sign in again.',
      headers: { 'WWW-Authenticate': 'Bearer realm="restgate", error="invalid_token"' },
    });
  },
  mfaAlreadyOn(): AppError {
    return new AppError({ code: 'mfa_already_on', status: 409, title: 'Conflict', detail: 'Multi-factor sign-in is already on for this user.' });
  },
  mfaNotPending(): AppError {
    return new AppError({
      code: 'mfa_not_pending',
      status: 409,
      title: 'Conflict',
      detail: 'No enrolment is pending: start one with POST /users/me/mfa/totp.',
    });
  },
  mfaOff(): AppError {
    return new AppError({ code: 'mfa_off', status: 409, title: 'Conflict', detail: 'Multi-factor sign-in is not on for this user.' });
  },
};
