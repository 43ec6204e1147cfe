import { deadLinkPage, escapeHtml, page } from './link-page';

/**
 * The pages the verification mail links to. Opening the link only shows a button: mail scanners
 * and link previews fetch links, and must not verify an address for whoever signed it up.
 */
export function verificationFormPage(view: { email: string; createdAt: Date }): string {
  // Confirming proves the address, not who chose the account's password: whoever opens this may
  // be learning only now that someone signed their address up.
  const day = view.createdAt.toISOString().slice(0, 10);
  return page(
    'Confirm your e-mail address',
    `<p>An account was created with this address on ${day} (UTC): <strong>${escapeHtml(view.email)}</strong>.</p>
<p>If you created it, confirm that the address is yours.</p>
<form method="post" class="panel">
<button type="submit">Confirm my e-mail address</button>
</form>
<p>If you did not create it, do not confirm: someone else chose its password. Reset the password for this address instead (“forgot password” where the account is used): the reset mail comes here, and the password you choose ends theirs.</p>`,
  );
}

export function verificationDonePage(email: string): string {
  return page(
    'Your e-mail address is confirmed',
    `<div class="panel" role="status"><p>The address <strong>${escapeHtml(email)}</strong> is verified. You can close this page.</p></div>`,
  );
}

export const verificationDeadLinkPage = () =>
  deadLinkPage(
    'verification',
    'If your address is not verified yet, ask for a new link where you signed up; a link works once, for 24 hours.',
  );
