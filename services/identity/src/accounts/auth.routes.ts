import { bindRoutes, type RouteDef } from '@restgate/shared/http';
import type { authApi } from './accounts.api';
import type { AccountsDeps } from './accounts-deps';
import { logout } from './manage-sessions';
import { refreshSession } from './sessions';
import { recordSignInFailure, signIn } from './sign-in';
import { parseBasicCredentials } from './basic-credentials';
import { signedInView } from './user.views';

export function authRoutes(deps: AccountsDeps, api: typeof authApi): RouteDef[] {
  return bindRoutes(api, {
    signIn: async ({ headers, clientAddress, signal }) => {
      const credentials = parseBasicCredentials(headers.authorization);
      try {
        const signedIn = await signIn(deps, credentials, { clientAddress, signal, userAgent: headers['user-agent'] });
        return { status: 201, body: signedInView(signedIn) };
      } catch (err) {
        await recordSignInFailure(deps, err, credentials, 'password');
        throw err;
      }
    },
    refreshSession: async ({ body }) => ({ status: 201, body: signedInView(await refreshSession(deps, body.refreshToken)) }),
    logout: async ({ principal }) => {
      await logout(deps, principal);
      return { status: 204 };
    },
  });
}
