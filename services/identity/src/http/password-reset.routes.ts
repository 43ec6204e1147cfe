import { bindRoutes, type RouteDef } from '@restgate/shared/http';
import type { passwordResetApi } from '../api';
import { completePasswordReset } from '../domain/complete-password-reset';
import { getPasswordReset } from '../domain/get-password-reset';
import type { PasswordResetDeps } from '../domain/password-reset';
import { requestPasswordReset } from '../domain/request-password-reset';
import { showResetPage, submitResetForm } from './reset-page.handlers';
import { prefersHtml } from './reset-page';

/** One body for every accepted request, registered e-mail or not. */
const ACCEPTED = { status: 'accepted', message: 'If the e-mail is registered, a link to reset the password is on its way to it.' } as const;

export function passwordResetRoutes(
  deps: PasswordResetDeps,
  api: ReturnType<typeof passwordResetApi>,
  options: { passwordMinLength: number },
): RouteDef[] {
  const page = { passwordMinLength: options.passwordMinLength, passwordBody: api.completePasswordReset.schemas!.body! };
  return bindRoutes(api, {
    requestPasswordReset: async ({ body, requestId, log }) => {
      await requestPasswordReset(deps, { email: body.email, link: body.link, requestId }, log);
      return { status: 202, body: ACCEPTED };
    },
    // The link in the mail: a browser gets the reset page, an API client the JSON.
    getPasswordReset: async ({ params, headers }) =>
      prefersHtml(headers.accept)
        ? showResetPage(deps, params.token, page)
        : { status: 200, body: await getPasswordReset(deps, params.token), headers: { Vary: 'Accept' } },
    submitPasswordResetForm: async ({ params, body }) => submitResetForm(deps, params.token, body, page),
    completePasswordReset: async ({ params, body }) => ({
      status: 200,
      body: await completePasswordReset(deps, params.token, body.password),
    }),
  });
}
