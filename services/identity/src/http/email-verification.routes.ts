import { isAppError } from '@restgate/shared';
import { bindRoutes, type RouteDef, type RouteResult } from '@restgate/shared/http';
import type { emailVerificationApi } from '../api';
import type { EmailVerificationDeps } from '../domain/email-verification';
import { requestEmailVerification } from '../domain/request-email-verification';
import { getEmailVerification, getVerificationPage, verifyEmail } from '../domain/verify-email';
import { prefersHtml, RESET_PAGE_HEADERS } from './reset-page';
import { verificationDeadLinkPage, verificationDonePage, verificationFormPage } from './verification-page';

/** One body for every accepted request, registered e-mail or not. */
const ACCEPTED = {
  status: 'accepted',
  message: 'If the e-mail is registered and not verified yet, a new verification link is on its way to it.',
} as const;

const html = (status: number, body: string): RouteResult => ({ status, html: body, headers: RESET_PAGE_HEADERS });

/** A dead token (404) is a page of its own; anything else is the API's problem answer. */
async function asPage(render: () => Promise<string>): Promise<RouteResult> {
  try {
    return html(200, await render());
  } catch (err) {
    if (isAppError(err) && err.status === 404) return html(404, verificationDeadLinkPage());
    throw err;
  }
}

export function emailVerificationRoutes(deps: EmailVerificationDeps, api: ReturnType<typeof emailVerificationApi>): RouteDef[] {
  return bindRoutes(api, {
    requestEmailVerification: async ({ body, requestId, log }) => {
      await requestEmailVerification(deps, { email: body.email, requestId }, log);
      return { status: 202, body: ACCEPTED };
    },
    // The link in the mail: a browser gets the page, an API client the JSON.
    getEmailVerification: async ({ params, headers }) =>
      prefersHtml(headers.accept)
        ? asPage(async () => verificationFormPage(await getVerificationPage(deps, params.token)))
        : { status: 200, body: await getEmailVerification(deps, params.token), headers: { Vary: 'Accept' } },
    submitEmailVerificationForm: async ({ params }) =>
      asPage(async () => verificationDonePage((await verifyEmail(deps, params.token)).email)),
    verifyEmail: async ({ params }) => ({ status: 200, body: await verifyEmail(deps, params.token) }),
  });
}
