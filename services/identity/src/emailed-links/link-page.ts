import { createHash } from 'node:crypto';
import { isAppError } from '@restgate/shared';
import type { RouteResult } from '@restgate/shared/http';
import type { UserRecord } from '../accounts/user';
import { linkUserView } from '../accounts/user.views';

/**
 * The pages an e-mailed link opens (a password reset, an e-mail verification): plain HTML, no
 * script, a form that posts back to its own URL (browsers can't send PUT from a form). They borrow
 * the look of the API docs (Swagger UI's top bar, colours and operation panel) with their own small
 * stylesheet, inline and allowed by its hash, so the CSP allows nothing else: no script at all,
 * forms to this origin only.
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
const LINK_PAGE_CSP = [
  "default-src 'none'",
  `style-src 'sha256-${STYLE_HASH}'`,
  "img-src 'self' data:",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** The link carries a live token: never cached, never sent on as a referrer. */
const LINK_PAGE_HEADERS: Record<string, string> = {
  'Content-Security-Policy': LINK_PAGE_CSP,
  'Cache-Control': 'no-store',
  'Referrer-Policy': 'no-referrer',
  Vary: 'Accept',
};

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

/** A page in the links' look, allowed by their CSP. */
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

/** A page as the route's answer, with the headers of a page that carries a live token. */
export function htmlPage(status: number, body: string): RouteResult {
  return { status, html: body, headers: LINK_PAGE_HEADERS };
}

/** A token that is unknown, used or expired: one page for all, as the API has one 404. */
export function deadLinkPage(link: string, hint: string): string {
  return page(
    'This link no longer works',
    `<div class="panel error" role="alert"><p>This ${link} link has expired or has already been used.</p>
<p>${hint}</p></div>`,
  );
}

/** A page of the link's purpose; a dead token (404) is `deadLink`; anything else is the API's problem answer. */
export async function linkPage(deadLink: string, render: () => Promise<RouteResult>): Promise<RouteResult> {
  try {
    return await render();
  } catch (err) {
    if (isAppError(err) && err.status === 404) return htmlPage(404, deadLink);
    throw err;
  }
}

/**
 * The link in the mail, `GET …/:token`: a browser gets the purpose's page, an API client the JSON
 * `{ user }` of whose link it is.
 */
export async function showLink(
  accept: string | undefined,
  open: () => Promise<Pick<UserRecord, 'id' | 'name' | 'picture' | 'email'>>,
  showPage: () => Promise<RouteResult>,
): Promise<RouteResult> {
  if (prefersHtml(accept)) return showPage();
  return { status: 200, body: { user: linkUserView(await open()) }, headers: { Vary: 'Accept' } };
}

/**
 * True when the client asks for a page: `text/html` listed explicitly and preferred to JSON.
 * Browsers list text/html; curl and API clients send `*\/*` or application/json, and keep JSON.
 */
function prefersHtml(accept: string | undefined): boolean {
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
