import type { StringSchema } from 'joi';
import { Joi } from '../joi';

/**
 * What joi's `trim()` removes (ECMAScript white space and line terminators), spelled out: `\s`
 * means other sets in other regex dialects (Python's counts \x1c–\x1f and not U+FEFF), and a
 * pattern in the API docs is read by clients in any of them.
 */
export const TRIMMED_WHITESPACE = '\\t\\n\\u000b\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff';

const WS = `[${TRIMMED_WHITESPACE}]*`;
// Only ASCII classes and no flags, so JavaScript and Python read the pattern alike.
const SCHEME = '[Hh][Tt][Tt][Pp][Ss]?://';
const USERINFO = "(?:[A-Za-z0-9._~!$&'()*+,;=:%-]*@)?";
// A host name or IPv4 address: letters, digits, dots and hyphens, 1 to 253 characters.
const HOST = '[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?';
const PORT = '(?::[0-9]{1,5})?';
// Path, query and fragment: RFC 3986's unreserved and reserved characters and `%` (no brackets).
const REST = "(?:[/?#][A-Za-z0-9._~:/?#@!$&'()*+,;=%-]*)?";

/**
 * An absolute http(s) URL, blanks around it allowed (they are trimmed). The one rule for URLs a
 * client sends (pictures, reset links, `url` fields of resources): the validator and the API docs
 * use this same pattern, so the document says exactly what is accepted.
 */
export const HTTP_URL_PATTERN = new RegExp(`^${WS}${SCHEME}${USERINFO}${HOST}${PORT}${REST}${WS}$`);

// A path only: RFC 3986's path characters (no `?`, no `#`).
const PATH = "(?:/[A-Za-z0-9._~:/@!$&'()*+,;=%-]*)?";

/**
 * An absolute http(s) URL with no user info, query string or fragment: a page that something
 * (a token) is appended to as a last path segment. Same conventions as HTTP_URL_PATTERN.
 */
export const HTTP_PAGE_PATTERN = new RegExp(`^${WS}${SCHEME}${HOST}${PORT}${PATH}${WS}$`);

/** A trimmed http(s) page URL (see HTTP_PAGE_PATTERN) of at most `max` characters. */
export function httpPageSchema(max: number): StringSchema {
  return Joi.string().trim().max(max).pattern(HTTP_PAGE_PATTERN).messages({
    'string.pattern.base':
      '{{#label}} must be an http or https URL without a user name, query string or fragment (the token is appended to its path)',
  });
}

/** A trimmed http(s) URL of at most `max` characters, refused with a message naming the rule. */
export function httpUrlSchema(max: number): StringSchema {
  return Joi.string()
    .trim()
    .max(max)
    .pattern(HTTP_URL_PATTERN)
    .messages({ 'string.pattern.base': '{{#label}} must be an http or https URL' });
}
