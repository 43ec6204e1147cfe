import { errors } from '@restgate/shared';

/** Where a client can put its access token (api.md). */
export type CredentialPlace = 'query' | 'body' | 'bearer';

export interface PresentedToken {
  place: CredentialPlace;
  token: string;
}

export const ACCESS_TOKEN = 'access_token';

/** Decodes one `application/x-www-form-urlencoded` component the way URLSearchParams does. */
function decodeComponent(component: string): string {
  return new URLSearchParams(`x=${component}`).get('x') ?? '';
}

/**
 * Takes every `access_token` pair out of a query string or a form body and returns the values
 * and the other pairs untouched, byte for byte (`email[$ne]=x` stays exactly `email[$ne]=x`).
 * Works on the encoded text, so nothing but the removed pairs is ever re-encoded.
 */
export function takeAccessTokens(encoded: string): { tokens: string[]; rest: string } {
  const tokens: string[] = [];
  const kept: string[] = [];
  for (const pair of encoded.split('&')) {
    const eq = pair.indexOf('=');
    const name = decodeComponent(eq === -1 ? pair : pair.slice(0, eq));
    if (name === ACCESS_TOKEN) tokens.push(eq === -1 ? '' : decodeComponent(pair.slice(eq + 1)));
    else kept.push(pair);
  }
  return tokens.length ? { tokens, rest: kept.join('&') } : { tokens, rest: encoded };
}

/**
 * Takes `access_token` out of a parsed JSON body. A token that is not a string is still a
 * presented credential (serialized, so that it fails verification as an invalid token).
 */
export function takeJsonAccessToken(body: unknown): { tokens: string[]; rest: unknown } {
  if (typeof body !== 'object' || body === null || Array.isArray(body) || !Object.hasOwn(body, ACCESS_TOKEN)) {
    return { tokens: [], rest: body };
  }
  const { [ACCESS_TOKEN]: value, ...rest } = body as Record<string, unknown>;
  if (value === null || value === undefined) return { tokens: [], rest };
  return { tokens: [typeof value === 'string' ? value : JSON.stringify(value)], rest };
}

export type Authorization = { scheme: 'bearer'; token: string } | { scheme: 'basic' } | { scheme: 'other' };

/** Reads the scheme of an `Authorization` header; a Bearer with no token keeps an empty token. */
export function parseAuthorization(header: string | undefined): Authorization | undefined {
  if (header === undefined) return undefined;
  const match = /^\s*(\S+)(?:\s+(.*))?$/.exec(header);
  const scheme = match?.[1]?.toLowerCase();
  if (scheme === 'bearer') return { scheme: 'bearer', token: (match?.[2] ?? '').trim() };
  if (scheme === 'basic') return { scheme: 'basic' };
  return { scheme: 'other' };
}

/**
 * The one credential of a request, or undefined when none was given.
 * Empty `access_token` values count as absent (clients send `access_token=` for "none"), but an
 * explicit `Authorization: Bearer` with nothing after it is a presented, invalid token.
 * Two or more tokens (in two places, or twice in one) are a 400: never guess which one counts.
 */
export function singleCredential(presented: PresentedToken[]): PresentedToken | undefined {
  const given = presented.filter((p) => p.place === 'bearer' || p.token !== '');
  if (given.length > 1) throw errors.credentialAmbiguous();
  return given[0];
}
