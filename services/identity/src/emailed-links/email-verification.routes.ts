import { bindRoutes, type RouteDef } from '@restgate/shared/http';
import type { emailVerificationApi } from './emailed-links.api';
import { requestEmailVerification, verifyEmail, type EmailVerificationDeps } from './email-verification';
import { openLink } from './emailed-link';
import { verificationDeadLinkPage, verificationDonePage, verificationFormPage } from './email-verification.pages';
import { htmlPage, linkPage, showLink } from './link-page';
import { fullView } from '../accounts/user.views';

/** One body for every accepted request, registered e-mail or not. */
const ACCEPTED = {
  status: 'accepted',
  message: 'If the e-mail is registered and not verified yet, a new verification link is on its way to it.',
} as const;

export function emailVerificationRoutes(deps: EmailVerificationDeps, api: ReturnType<typeof emailVerificationApi>): RouteDef[] {
  const page = (render: () => Promise<string>) => linkPage(verificationDeadLinkPage(), async () => htmlPage(200, await render()));
  return bindRoutes(api, {
    requestEmailVerification: async ({ body, requestId, log }) => {
      await requestEmailVerification(deps, { email: body.email, requestId }, log);
      return { status: 202, body: ACCEPTED };
    },
    // The page shows the address, and when the account with it was created: the owner may not
    // have created it (anyone can sign an address up).
    getEmailVerification: async ({ params, headers }) =>
      showLink(
        headers.accept,
        () => openLink(deps, params.token),
        () => page(async () => verificationFormPage(await openLink(deps, params.token))),
      ),
    submitEmailVerificationForm: async ({ params }) =>
      page(async () => verificationDonePage((await verifyEmail(deps, params.token)).email)),
    verifyEmail: async ({ params }) => ({ status: 200, body: fullView(await verifyEmail(deps, params.token)) }),
  });
}
