import { createHash } from 'node:crypto';
import { PASSWORD_MAX_LENGTH } from '../domain/password-limits';

/**
 * The password-reset page that the reset mail links to: plain HTML, no script, a form that posts
 * back to its own URL (browsers can't send PUT from a form). It borrows the look of the API docs
 * (Swagger UI's top bar, colours and operation panel) with its own small stylesheet, inline and
 * allowed by its hash, so the CSP allows nothing else: no script at all, forms to this origin only.
 */

const STYLE = `
body{margin:0;background:#fafafa;color:#3b4151;font-family:sans-serif;font-size:14px}
.topbar{background:#1b1b1b;padding:10px 0}
.topbar p{max-width:640px;margin:0 auto;padding:0 20px;color:#fff;font-weight:700;font-size:1.5em}
main{max-width:640px;margin:0 auto;padding:20px}
h1{font-size:36px;margin:30px 0 10px}
.panel{border:1px solid #49cc90;background:rgba(73,204,144,.1);border-radius:4px;padding:20px;margin:20px 0}
.panel.error{border-color:#f93e3e;background:rgba(249,62,62,.1)}
label{display:block;font-weight:700;margin:12px 0 4px}
input{box-sizing:border-box;width:100%;padding:8px 10px;border:1px solid #d9d9d9;border-radius:4px;font-size:14px}
button{margin-top:16px;background:#4990e2;border:2px solid #4990e2;color:#fff;border-radius:4px;padding:8px 23px;font-weight:700;font-size:14px;cursor:pointer}
.hint{color:#6b6b6b;font-size:12px}
`;

const STYLE_HASH = createHash('sha256').update(STYLE).digest('base64');

/** Nothing but the inline stylesheet above and a form back to this origin. */
export const RESET_PAGE_CSP = [
  "default-src 'none'",
  `style-src 'sha256-${STYLE_HASH}'`,
  "img-src 'self' data:",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** The link carries a live token: never cached, never sent on as a referrer. */
export const RESET_PAGE_HEADERS: Record<string, string> = {
  'Content-Security-Policy': RESET_PAGE_CSP,
  'Cache-Control': 'no-store',
  'Referrer-Policy': 'no-referrer',
  Vary: 'Accept',
};

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

/** A page in the reset page's look, allowed by RESET_PAGE_CSP (other pages with a token link reuse it). */
export function page(title: string, content: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)} · restgate</title>
<style>${STYLE}</style>
</head>
<body>
<header class="topbar"><p>restgate</p></header>
<main>
<h1>${escapeHtml(title)}</h1>
${content}
</main>
</body>
</html>
`;
}

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

/** A token that is unknown, used or expired: one page for all, as the API has one 404. */
export function resetDeadLinkPage(): string {
  return page(
    'This link no longer works',
    `<div class="panel error" role="alert"><p>This password reset link has expired or has already been used.</p>
<p>Ask for a new one where you asked for this one; a link works once, for a limited time.</p></div>`,
  );
}

/**
 * True when the client asks for a page: `text/html` listed explicitly and preferred to JSON.
 * Browsers list text/html; curl and API clients send `*\/*` or application/json, and keep JSON.
 */
export function prefersHtml(accept: string | undefined): boolean {
  if (!accept) return false;
  const q = (type: string) => {
    let best = 0;
    for (const part of accept.split(',')) {
      const [media, ...params] = part.trim().toLowerCase().split(';');
      if (media?.trim() !== type) continue;
      const weight = params.map((p) => /^\s*q\s*=\s*([0-9.]+)\s*$/.exec(p)?.[1]).find(Boolean);
      best = Math.max(best, weight === undefined ? 1 : Number(weight));
    }
    return best;
  };
  const html = q('text/html');
  return html > 0 && html > q('application/json');
}
