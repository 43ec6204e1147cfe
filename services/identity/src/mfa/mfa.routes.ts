import { bindRoutes, type RouteDef, type RouteInput } from '@restgate/shared/http';
import type { mfaApi } from './mfa.api';
import type { MfaModuleDeps } from './mfa';
import {
  adminDisableMfa,
  completeMfaSignIn,
  confirmTotpEnrolment,
  disableOwnMfa,
  regenerateRecoveryCodes,
  startTotpEnrolment,
} from './mfa';
import { parseBasicCredentials } from '../accounts/basic-credentials';
import { resolveUserId } from '../accounts/user-id';
import { signedInView } from '../accounts/user.views';

/**
 * The MFA routes (src/api.ts `mfaApi`). Without MFA_ENCRYPTION_KEY only the admin's switch-off is
 * served (it needs no key: it is how users get back in after a lost key); the others are 404s.
 */
export function mfaRoutes(deps: MfaModuleDeps, api: ReturnType<typeof mfaApi>): RouteDef[] {
  const adminDisable = async ({ principal, params, requestId }: RouteInput<unknown, unknown, { id: string }>) => {
    await adminDisableMfa(deps, principal, resolveUserId(params.id, principal), requestId);
    return { status: 204 };
  };
  const mfaCrypto = deps.mfaCrypto;
  if (!mfaCrypto) return bindRoutes({ adminDisableMfa: api.adminDisableMfa }, { adminDisableMfa: adminDisable });
  const mfa = { ...deps, mfaCrypto };
  return bindRoutes(api, {
    completeMfaSignIn: async ({ body, clientAddress, signal, requestId }) => ({
      status: 201,
      body: signedInView(await completeMfaSignIn(mfa, body, { clientAddress, signal, requestId })),
    }),
    startTotpEnrolment: async ({ principal, body, clientAddress, signal }) => ({
      status: 201,
      body: await startTotpEnrolment(mfa, principal, body.password, { clientAddress, signal }),
    }),
    confirmTotpEnrolment: async ({ principal, body, clientAddress, requestId }) => ({
      status: 200,
      body: await confirmTotpEnrolment(mfa, principal, body.code, { clientAddress, requestId }),
    }),
    regenerateRecoveryCodes: async ({ principal, body, clientAddress, requestId }) => ({
      status: 201,
      body: await regenerateRecoveryCodes(mfa, principal, body.code, { clientAddress, requestId }),
    }),
    disableOwnMfa: async ({ principal, headers, body, clientAddress, signal, requestId }) => {
      await disableOwnMfa(mfa, principal, parseBasicCredentials(headers.authorization), body, { clientAddress, signal, requestId });
      return { status: 204 };
    },
    adminDisableMfa: adminDisable,
  });
}
