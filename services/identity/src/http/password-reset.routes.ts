import { bindRoutes, type RouteDef } from '@restgate/shared';
import type { passwordResetApi } from '../api';
import { completePasswordReset } from '../domain/complete-password-reset';
import { getPasswordReset } from '../domain/get-password-reset';
import type { PasswordResetDeps } from '../domain/password-reset';
import { requestPasswordReset } from '../domain/request-password-reset';

/** One body for every accepted request, registered e-mail or not. */
const ACCEPTED = { status: 'accepted', message: 'If the e-mail is registered, a link to reset the password is on its way to it.' } as const;

export function passwordResetRoutes(deps: PasswordResetDeps, api: ReturnType<typeof passwordResetApi>): RouteDef[] {
  return bindRoutes(api, {
    requestPasswordReset: async ({ body, requestId, log }) => {
      await requestPasswordReset(deps, { email: body.email, link: body.link, requestId }, log);
      return { status: 202, body: ACCEPTED };
    },
    getPasswordReset: async ({ params }) => ({ status: 200, body: await getPasswordReset(deps, params.token) }),
    completePasswordReset: async ({ params, body }) => ({
      status: 200,
      body: await completePasswordReset(deps, params.token, body.password),
    }),
  });
}
