import type { Logger } from '@restgate/shared';
import type { RouteDef } from '@restgate/shared/http';
import type { AccountsDeps } from '../accounts/accounts-deps';
import { socialApi } from './social.api';
import { createSocialLogin, type SocialConfig } from './social-login';
import { socialRoutes } from './social.routes';

/** Social sign-in as identity composes it: `POST /auth/<provider>` for each provider SOCIAL_PROVIDERS enables. */
export function createSocialModule(parts: { config: SocialConfig; logger: Logger; core: AccountsDeps }): { routes: RouteDef[] } {
  return { routes: socialRoutes(parts.core, createSocialLogin(parts.config, parts.logger), socialApi) };
}
