import type { RouteDef } from '@restgate/shared';
import type { IdentityDeps } from '../domain/identity-deps';
import type { SocialLogin } from '../domain/social/social-login';
import { authRoutes } from './auth.routes';
import { socialRoutes } from './social.routes';
import { userRoutes } from './user.routes';

/** The identity service's route table with its default levels (before `ROUTE_POLICY`). */
export function identityRoutes(deps: IdentityDeps, options: { passwordMinLength: number; social?: SocialLogin }): RouteDef[] {
  return [...authRoutes(deps), ...socialRoutes(deps, options.social), ...userRoutes(deps, options)];
}
