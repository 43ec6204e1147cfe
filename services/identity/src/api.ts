/**
 * The identity service's routes, described once: the index of its features' specs, in the order
 * the service mounts them. The gateway reads the compiled `api` (dist/api.js) for its policy
 * table. Data only: this file and what it imports neither connect nor start anything, and need
 * nothing but joi and @restgate/shared at run time.
 */
import type { ServiceApi } from '@restgate/shared/http';
import { authApi, userApi } from './accounts/accounts.api';
import { DEFAULT_API_OPTIONS, type IdentityApiOptions } from './accounts/api-fragments';
import { emailVerificationApi, passwordResetApi } from './emailed-links/emailed-links.api';
import { mfaApi } from './mfa/mfa.api';
import { socialApi } from './social/social.api';

export type { IdentityApiOptions };

/** Every route of the service, in the order it mounts them. */
export function identityApi(options: IdentityApiOptions) {
  return {
    ...authApi,
    ...socialApi,
    ...userApi(options),
    ...mfaApi(options),
    ...passwordResetApi(options),
    ...emailVerificationApi(options),
  };
}

/** What the gateway reads: every route with its default level. */
export const api: ServiceApi = identityApi(DEFAULT_API_OPTIONS);
