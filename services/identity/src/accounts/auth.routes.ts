import { bindRoutes, type RouteDef } from '@restgate/shared/http';
import type { authApi } from './accounts.api';
import type { AccountsDeps } from './accounts-deps';
import { logout } from './manage-sessions';
import { refreshSession } from './sessions';
import { signIn } from './sign-in';
import { parseBasicCredentials } from './basic-credentials';
import { signedInView } from './user.views';

export function authRoutes(deps: AccountsDeps, api: typeof authApi): RouteDef[] {
  return bindRoutes(api, {
    signIn: async ({ headers, clientAddress, signal }) => ({
      status: 201,
      body: signedInView(
        await signIn(deps, parseBasicCredentials(headers.authorization), { clientAddress, signal, userAgent: headers['user-agent'] }),
      ),
    }),
    refreshSession: async ({ body }) => ({ status: 201, body: signedInView(await refreshSession(deps, body.refreshToken)) }),
    logout: async ({ principal }) => {
      await logout(deps, principal);
      return { status: 204 };
    },
  });
}
