import { isAppError } from '@restgate/shared';
import { bindRoutes, validateInput, type RouteDef } from '@restgate/shared/http';
import type { passwordResetApi } from './emailed-links.api';
import { openLink } from './emailed-link';
import { completePasswordReset, requestPasswordReset, type PasswordResetDeps } from './password-reset';
import { htmlPage, linkPage, showLink } from './link-page';
import { resetDeadLinkPage, resetDonePage, resetFormPage } from './password-reset.pages';
import { fullView } from '../accounts/user.views';

/** One body for every accepted request, registered e-mail or not. */
const ACCEPTED = { status: 'accepted', message: 'If the e-mail is registered, a link to reset the password is on its way to it.' } as const;

export function passwordResetRoutes(
  deps: PasswordResetDeps,
  api: ReturnType<typeof passwordResetApi>,
  options: { passwordMinLength: number },
): RouteDef[] {
  const { passwordMinLength } = options;
  // The JSON route's password rules, so the page refuses exactly what PUT refuses.
  const passwordBody = api.completePasswordReset.schemas!.body!;
  const page = (render: Parameters<typeof linkPage>[1]) => linkPage(resetDeadLinkPage(), render);
  return bindRoutes(api, {
    requestPasswordReset: async ({ body, requestId, log }) => {
      await requestPasswordReset(deps, { email: body.email, link: body.link, requestId }, log);
      return { status: 202, body: ACCEPTED };
    },
    // The form ("Choose a new password") for the account the link opens.
    getPasswordReset: async ({ params, headers }) =>
      showLink(
        headers.accept,
        () => openLink(deps, params.token),
        () => page(async () => htmlPage(200, resetFormPage({ email: (await openLink(deps, params.token)).email, passwordMinLength }))),
      ),
    // The outcome as a page; a refused password shows the form again, the token still valid.
    submitPasswordResetForm: async ({ params, body: form, signal }) =>
      page(async () => {
        const { email } = await openLink(deps, params.token);
        const again = (error: string) => htmlPage(400, resetFormPage({ email, passwordMinLength, error }));
        if ((form.password ?? '') !== (form.confirmation ?? ''))
          return again('The two passwords are not the same. Type the new password twice.');
        let password: string;
        try {
          ({ password } = validateInput(passwordBody, { password: form.password }, 'body'));
        } catch (err) {
          if (isAppError(err) && err.status === 400) return again(err.detail);
          throw err;
        }
        return htmlPage(200, resetDonePage((await completePasswordReset(deps, params.token, password, signal)).email));
      }),
    completePasswordReset: async ({ params, body, signal }) => ({
      status: 200,
      body: fullView(await completePasswordReset(deps, params.token, body.password, signal)),
    }),
  });
}
