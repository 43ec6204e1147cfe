import { PASSWORD_MAX_LENGTH } from '../accounts/password-limits';
import { deadLinkPage, escapeHtml, page } from './link-page';

export interface ResetFormView {
  email: string;
  passwordMinLength: number;
  /** What was wrong with the last submission, if anything. */
  error?: string;
}

/** The form: the new password twice, posted back to the page's own URL. */
export function resetFormPage(view: ResetFormView): string {
  const error = view.error ? `<div class="panel error" role="alert"><p>${escapeHtml(view.error)}</p></div>` : '';
  return page(
    'Choose a new password',
    `<p>For the account <strong>${escapeHtml(view.email)}</strong>.</p>
${error}<form method="post" class="panel">
<input type="hidden" name="email" value="${escapeHtml(view.email)}" autocomplete="username">
<label for="password">New password</label>
<input id="password" name="password" type="password" autocomplete="new-password" required minlength="${view.passwordMinLength}" maxlength="${PASSWORD_MAX_LENGTH}">
<p class="hint">At least ${view.passwordMinLength} characters, at most ${PASSWORD_MAX_LENGTH}.</p>
<label for="confirmation">The same password again</label>
<input id="confirmation" name="confirmation" type="password" autocomplete="new-password" required minlength="${view.passwordMinLength}" maxlength="${PASSWORD_MAX_LENGTH}">
<button type="submit">Set the new password</button>
</form>`,
  );
}

/** After a successful reset. */
export function resetDonePage(email: string): string {
  return page(
    'Your password is set',
    `<div class="panel" role="status"><p>The password of <strong>${escapeHtml(email)}</strong> has been changed. Sign in with the new one.</p>
<p>This link is used up, and so are any other reset links sent to this account.</p></div>`,
  );
}

export const resetDeadLinkPage = () =>
  deadLinkPage('password reset', 'Ask for a new one where you asked for this one; a link works once, for a limited time.');
