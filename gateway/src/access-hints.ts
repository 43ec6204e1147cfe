import { errors, takesBasic, type AccessLevel, type Authorization, type Principal } from '@restgate/shared';

/**
 * The routes that take HTTP Basic (sign-in, a password change) are where clients most often mix
 * up credentials: Basic sent without the master key, or a token sent where an e-mail and password
 * are wanted. The gateway sees both halves, so it names the missing one instead of answering the
 * generic "needs a credential" or the service's "wrong e-mail or password".
 * Runs after the presented token (if any) has been verified, before the level is checked.
 */
export function assertCredentialKinds(level: AccessLevel, principal: Principal, authorization: Authorization | undefined): void {
  const hasBasic = authorization?.scheme === 'basic';
  if (level === 'master+basic' && principal.kind === 'anonymous') {
    throw errors.unauthorized(
      hasBasic
        ? 'The master key is missing: send it as access_token in the query string or the body (the Authorization header already carries the HTTP Basic e-mail and password).'
        : "This route needs the master key as access_token (query string or body) and the user's e-mail and password as HTTP Basic.",
      false,
      hasBasic ? 'master_key_missing' : 'credential_missing',
    );
  }
  if (level === 'user+basic' && principal.kind === 'anonymous') {
    throw errors.unauthorized(
      hasBasic
        ? "The user's token is missing: send it as access_token in the query string or the body (the Authorization header already carries the HTTP Basic e-mail and password)."
        : "This route needs the user's token (from POST /auth) as access_token (query string or body) and their e-mail and password as HTTP Basic.",
      false,
      hasBasic ? 'user_token_missing' : 'credential_missing',
    );
  }
  const basicLevelPassed = level === 'basic' || (level === 'master+basic' && principal.kind === 'master') || (level === 'user+basic' && principal.kind === 'user');
  if (takesBasic(level) && !hasBasic && basicLevelPassed) {
    throw errors.basicUnauthorized(
      authorization?.scheme === 'bearer'
        ? "This route needs HTTP Basic (the user's e-mail and password in Authorization: Basic), not a Bearer token; a token goes as access_token."
        : "This route needs HTTP Basic: the user's e-mail and password in Authorization: Basic.",
      'basic_required',
    );
  }
}
