import { authenticate, type CheckContext, type Credentials } from './authenticate';
import type { IdentityDeps } from './identity-deps';
import { fullView, type FullUserView } from './user';

export async function signIn(
  deps: IdentityDeps,
  credentials: Credentials | null,
  context?: CheckContext,
): Promise<{ token: string; user: FullUserView }> {
  const user = await authenticate(deps, credentials, context);
  return { token: deps.tokens.issue(user), user: fullView(user) };
}
