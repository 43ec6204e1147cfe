import { isAppError } from '@restgate/shared';
import { validateInput, type RouteResult } from '@restgate/shared/http';
import type Joi from 'joi';
import { completePasswordReset } from '../domain/complete-password-reset';
import { getPasswordReset } from '../domain/get-password-reset';
import type { PasswordResetDeps } from '../domain/password-reset';
import { RESET_PAGE_HEADERS, resetDeadLinkPage, resetDonePage, resetFormPage } from './reset-page';

export interface ResetPageOptions {
  passwordMinLength: number;
  /** The JSON route's password rules (`{ password }`), so the page refuses exactly what PUT refuses. */
  passwordBody: Joi.ObjectSchema<{ password: string }>;
}

export interface ResetForm {
  password?: string;
  confirmation?: string;
}

const html = (status: number, page: string): RouteResult => ({ status, html: page, headers: RESET_PAGE_HEADERS });

/** A dead token (404) is a page of its own; anything else is the API's problem answer. */
function deadLinkOr(err: unknown): RouteResult {
  if (isAppError(err) && err.status === 404) return html(404, resetDeadLinkPage());
  throw err;
}

/** `GET /password-resets/:token` for a browser: the form, or the page of a dead link. */
export async function showResetPage(deps: PasswordResetDeps, token: string, options: ResetPageOptions): Promise<RouteResult> {
  try {
    const { user } = await getPasswordReset(deps, token);
    return html(200, resetFormPage({ email: user.email, passwordMinLength: options.passwordMinLength }));
  } catch (err) {
    return deadLinkOr(err);
  }
}

/** The form's POST: the outcome as a page; a refused password shows the form again, the token still valid. */
export async function submitResetForm(
  deps: PasswordResetDeps,
  token: string,
  form: ResetForm,
  options: ResetPageOptions,
): Promise<RouteResult> {
  let email: string;
  try {
    email = (await getPasswordReset(deps, token)).user.email;
  } catch (err) {
    return deadLinkOr(err);
  }
  const again = (error: string) => html(400, resetFormPage({ email, passwordMinLength: options.passwordMinLength, error }));
  if ((form.password ?? '') !== (form.confirmation ?? '')) return again('The two passwords are not the same. Type the new password twice.');
  let password: string;
  try {
    ({ password } = validateInput(options.passwordBody, { password: form.password }, 'body'));
  } catch (err) {
    if (isAppError(err) && err.status === 400) return again(err.detail);
    throw err;
  }
  try {
    const user = await completePasswordReset(deps, token, password);
    return html(200, resetDonePage(user.email));
  } catch (err) {
    return deadLinkOr(err);
  }
}
