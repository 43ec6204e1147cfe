import { authenticate, type CheckContext, type Credentials } from './authenticate';
import type { IdentityDeps } from './identity-deps';
import { openSession, type SignedIn } from './sessions';

/** `POST /auth`: the e-mail and password open a session. */
export async function signIn(
  deps: IdentityDeps,
  credentials: Credentials | null,
  context?: CheckContext & { userAgent?: string },
): Promise<SignedIn> {
  const user = await authenticate(deps, credentials, context);
  return openSession(deps, user, context?.userAgent);
}
