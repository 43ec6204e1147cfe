import type { Logger } from '@restgate/shared';
import type { IdentityConfig } from '../config';
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

/**
 * The enabled providers that would take a token issued to any other app (no app binding: client
 * id and secret, or Google's client ids), each as a sentence naming the keys to set. In production
 * they stop the start (`productionChecks` in start.ts); elsewhere `createSocialLogin` warns.
 */
export function socialAppProblems(config: SocialConfig): string[] {
  const enabled = new Set(config.SOCIAL_PROVIDERS);
  const unbound = (provider: SocialProviderName, keys: string, anyApp: string) =>
    `SOCIAL_PROVIDERS enables ${provider} without ${keys}: a token issued to ${anyApp} would sign in here (set them, or leave ${provider} out)`;
  const problems: string[] = [];
  if (enabled.has('facebook') && !(config.FACEBOOK_APP_ID && config.FACEBOOK_APP_SECRET)) {
    problems.push(unbound('facebook', 'FACEBOOK_APP_ID and FACEBOOK_APP_SECRET', 'any Facebook app'));
  }
  if (enabled.has('github') && !(config.GITHUB_CLIENT_ID && config.GITHUB_CLIENT_SECRET)) {
    problems.push(unbound('github', 'GITHUB_CLIENT_ID and GITHUB_CLIENT_SECRET', 'any GitHub app'));
  }
  if (enabled.has('google') && config.GOOGLE_CLIENT_ID.length === 0) {
    problems.push(unbound('google', 'GOOGLE_CLIENT_ID', 'any Google client'));
  }
  return problems;
}

/** The adapters of the providers `SOCIAL_PROVIDERS` enables; warns about those that accept any app's token (production refuses them first). */
export function createSocialLogin(config: SocialConfig, logger?: Logger): SocialLogin {
  const app =
    config.FACEBOOK_APP_ID && config.FACEBOOK_APP_SECRET ? { id: config.FACEBOOK_APP_ID, secret: config.FACEBOOK_APP_SECRET } : undefined;
  const githubApp =
    config.GITHUB_CLIENT_ID && config.GITHUB_CLIENT_SECRET
      ? { clientId: config.GITHUB_CLIENT_ID, clientSecret: config.GITHUB_CLIENT_SECRET }
      : undefined;
  const adapters: Record<SocialProviderName, () => SocialProvider> = {
    facebook: () => createFacebookProvider({ apiUrl: config.FACEBOOK_API_URL, app }),
    github: () => createGitHubProvider({ apiUrl: config.GITHUB_API_URL, app: githubApp }),
    google: () => createGoogleProvider({ apiUrl: config.GOOGLE_API_URL, clientIds: config.GOOGLE_CLIENT_ID }),
  };
  for (const problem of socialAppProblems(config)) logger?.warn(`${problem}; allowed outside production only`);
  return { providers: config.SOCIAL_PROVIDERS.map((name) => adapters[name]()), timeoutMs: config.SOCIAL_TIMEOUT_MS };
}
