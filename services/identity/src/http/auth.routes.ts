import { bindRoutes, type RouteDef } from '@restgate/shared';
import type { authApi } from '../api';
import type { IdentityDeps } from '../domain/identity-deps';
import { signIn } from '../domain/sign-in';
import { parseBasicCredentials } from './basic-credentials';

export function authRoutes(deps: IdentityDeps, api: typeof authApi): RouteDef[] {
  return bindRoutes(api, {
    signIn: async ({ headers, clientAddress, signal }) => ({
      status: 201,
      body: await signIn(deps, parseBasicCredentials(headers.authorization), { clientAddress, signal }),
    }),
  });
}
