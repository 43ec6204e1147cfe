import type { RouteDef } from '@restgate/shared/http';
import type { AccountsDeps } from './accounts-deps';
import { authApi, userApi } from './accounts.api';
import type { IdentityApiOptions } from './api-fragments';
import { authRoutes } from './auth.routes';
import { userRoutes } from './user.routes';

/** The core's routes: sign-in and sessions (`/auth…`), and users (`/users…`), mounted apart (the features' routes go between). */
export function accountRoutes(deps: AccountsDeps, options: IdentityApiOptions): { auth: RouteDef[]; users: RouteDef[] } {
  return { auth: authRoutes(deps, authApi), users: userRoutes(deps, userApi(options)) };
}
