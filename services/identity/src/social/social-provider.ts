/** The social sign-in providers restgate knows, by the name used in routes, config and storage. */
export const SOCIAL_PROVIDER_NAMES = ['facebook', 'github', 'google'] as const;

export type SocialProviderName = (typeof SOCIAL_PROVIDER_NAMES)[number];

/** What a provider says about the person behind an access token. */
export interface ProviderProfile {
  /** The provider's stable id of the person (GitHub's numeric id as a string). */
  id: string;
  /** As the provider gives it; undefined when it gives none. */
  email?: string;
  /** True only when the provider vouches that the person controls `email`. */
  emailVerified: boolean;
  name?: string;
  picture?: string;
}

/**
 * One adapter per provider: exchanges a provider access token for a profile. Throws AppErrors only:
 * 401 when the provider refuses the token (or it was issued to another app), 502 when the provider
 * fails or is unreachable, 504 when `signal` fires first.
 */
export interface SocialProvider {
  readonly name: SocialProviderName;
  /** For messages: "GitHub". */
  readonly label: string;
  fetchProfile(accessToken: string, signal: AbortSignal): Promise<ProviderProfile>;
}
