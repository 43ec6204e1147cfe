import { authenticate, type CheckContext, type Credentials } from './authenticate';
import type { IdentityDeps } from './identity-deps';
import { openSession, type SignedIn } from './sessions';
import { isAddressProven } from './user';
import { identityErrors } from '../errors';

/** `POST /auth`: the e-mail and password open a session (with REQUIRE_VERIFIED_EMAIL, only for a proven address). */
export async function signIn(
  deps: IdentityDeps,
  credentials: Credentials | null,
  context?: CheckContext & { userAgent?: string },
): Promise<SignedIn> {
  const user = await authenticate(deps, credentials, { clientAddress: 'unknown', ...context, lane: 'sign-in' });
  // After the password check: only the address's owner learns that the account awaits verification.
  if (deps.requireVerifiedEmail && !isAddressProven(user)) throw identityErrors.emailUnverified();
  return openSession(deps, user, context?.userAgent);
}
