import type { RouteDef } from '@restgate/shared';
import type { IdentityDeps } from '../domain/identity-deps';
import { authRoutes } from './auth.routes';
import { userRoutes } from './user.routes';

/** The identity service's route table with its default levels (before `ROUTE_POLICY`). */
export function identityRoutes(deps: IdentityDeps, options: { passwordMinLength: number }): RouteDef[] {
  return [...authRoutes(deps), ...userRoutes(deps, options)];
}
