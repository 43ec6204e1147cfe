import Joi from 'joi';

/**
 * The link of a mail that carries a token (reset, verification), as the mailer accepts it. Kept
 * apart, with joi alone, because the route specs (read by the gateway) check requested links by it.
 */
export const mailLinkSchema = Joi.string()
  .max(2048)
  .uri({ scheme: ['https', 'http'] });

/**
 * `<page>/<token>`, where page is the requested link when its origin is allowed, otherwise the
 * default page. Origins are compared whole (scheme, host and port), never as a string prefix:
 * `https://app.example.com.evil.test` does not start with the origin `https://app.example.com`.
 * The request's Host header plays no part. The link used is the one a browser would read
 * (`HTTPS://App.Example.com:443/r` → `https://app.example.com/r`), so the mail accepts it.
 */
export function resetLink(requested: string | undefined, token: string, settings: { linkOrigins: string[]; defaultPage: string }): string {
  const page = requested === undefined ? undefined : resetPage(requested);
  const allowed = page !== undefined && settings.linkOrigins.includes(new URL(page).origin);
  return `${(allowed ? page : settings.defaultPage).replace(/\/+$/, '')}/${token}`;
}

/** A token's length in the link: only its shape matters for the check below. */
const SAMPLE_TOKEN = 'A'.repeat(43);

/**
 * The page a requested `link` names, normalised as a browser reads it (scheme and host
 * lower-cased, default port and dot segments dropped); undefined when it can't be a reset page.
 * The token is appended to its path, so a query string or fragment (even an empty `?`) would
 * carry the token somewhere else (`?next=<token>`); credentials in a link are a phishing device;
 * and `<page>/<token>` must be a link the mail accepts: an accepted request never ends as a 202
 * that sends nothing. (The API refuses the first two with a 400 before this is asked.)
 */
export function resetPage(link: string): string | undefined {
  let url: URL;
  try {
    url = new URL(link.trim());
  } catch {
    return undefined;
  }
  const http = url.protocol === 'https:' || url.protocol === 'http:';
  if (!http || link.includes('?') || link.includes('#') || url.username || url.password) return undefined;
  const page = url.href.replace(/\/+$/, '');
  return mailLinkSchema.validate(`${page}/${SAMPLE_TOKEN}`).error ? undefined : page;
}
