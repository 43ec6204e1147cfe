import type { Logger } from '@restgate/shared';
import type { IdentityConfig } from '../../config';
import { createFacebookProvider } from './facebook.provider';
import { createGitHubProvider } from './github.provider';
import { createGoogleProvider } from './google.provider';
import type { SocialProvider, SocialProviderName } from './social-provider';

/** The enabled providers and the deadline of one sign-in's provider calls. */
export interface SocialLogin {
  providers: SocialProvider[];
  timeoutMs: number;
}

export type SocialConfig = Pick<
  IdentityConfig,
  | 'SOCIAL_PROVIDERS'
  | 'SOCIAL_TIMEOUT_MS'
  | 'FACEBOOK_API_URL'
  | 'FACEBOOK_APP_ID'
  | 'FACEBOOK_APP_SECRET'
  | 'GITHUB_API_URL'
  | 'GITHUB_CLIENT_ID'
  | 'GITHUB_CLIENT_SECRET'
  | 'GOOGLE_API_URL'
  | 'GOOGLE_CLIENT_ID'
>;

/** The adapters of the providers `SOCIAL_PROVIDERS` enables; warns about those that accept any app's token. */
export function createSocialLogin(config: SocialConfig, logger?: Logger): SocialLogin {
  const app =
    config.FACEBOOK_APP_ID && config.FACEBOOK_APP_SECRET ? { id: config.FACEBOOK_APP_ID, secret: config.FACEBOOK_APP_SECRET } : undefined;
  const githubApp =
    config.GITHUB_CLIENT_ID && config.GITHUB_CLIENT_SECRET ? { clientId: config.GITHUB_CLIENT_ID, clientSecret: config.GITHUB_CLIENT_SECRET } : undefined;
  const adapters: Record<SocialProviderName, () => SocialProvider> = {
    facebook: () => createFacebookProvider({ apiUrl: config.FACEBOOK_API_URL, app }),
    github: () => createGitHubProvider({ apiUrl: config.GITHUB_API_URL, app: githubApp }),
    google: () => createGoogleProvider({ apiUrl: config.GOOGLE_API_URL, clientIds: config.GOOGLE_CLIENT_ID }),
  };
  const enabled = config.SOCIAL_PROVIDERS;
  if (enabled.includes('facebook') && !app) {
    logger?.warn(
      'facebook sign-in is enabled without FACEBOOK_APP_ID and FACEBOOK_APP_SECRET: a token issued to any Facebook app will sign in',
    );
  }
  if (enabled.includes('github') && !githubApp) {
    logger?.warn('github sign-in is enabled without GITHUB_CLIENT_ID and GITHUB_CLIENT_SECRET: a token issued to any GitHub app will sign in');
  }
  if (enabled.includes('google') && config.GOOGLE_CLIENT_ID.length === 0) {
    logger?.warn('google sign-in is enabled without GOOGLE_CLIENT_ID: a token issued to any Google client will sign in');
  }
  return { providers: enabled.map((name) => adapters[name]()), timeoutMs: config.SOCIAL_TIMEOUT_MS };
}
