import { bindRoutes, type RouteDef, type RouteInput } from '@restgate/shared/http';
import type { socialApi } from './social.api';
import type { AccountsDeps } from '../accounts/accounts-deps';
import { socialSignIn } from './social-sign-in';
import type { SocialLogin } from './social-login';
import type { SocialProviderName } from './social-provider';
import { readProviderToken } from './provider-token';
import { signedInView } from '../accounts/user.views';

type TokenInput = { access_token?: string | string[] };

/** `POST /auth/<provider>` for each enabled provider; a disabled one has no route (404). */
export function socialRoutes(deps: AccountsDeps, social: SocialLogin | undefined, api: typeof socialApi): RouteDef[] {
  if (!social) return [];
  const signInWith =
    (name: SocialProviderName) =>
    async ({ body, query, headers }: RouteInput<TokenInput, TokenInput>) => {
      const provider = social.providers.find((p) => p.name === name)!;
      const token = readProviderToken({ body: body.access_token, query: query.access_token, authorization: headers.authorization });
      return { status: 201, body: signedInView(await socialSignIn(deps, provider, token, social.timeoutMs, headers['user-agent'])) };
    };
  const enabled = new Set(social.providers.map((p) => `/auth/${p.name}`));
  return bindRoutes(api, {
    signInWithFacebook: signInWith('facebook'),
    signInWithGithub: signInWith('github'),
    signInWithGoogle: signInWith('google'),
  }).filter((route) => enabled.has(route.path));
}
