import { errors } from '../errors';

/** Where a client can put its access token: `access_token` in the query or the body, or `Authorization: Bearer`. */
export type CredentialPlace = 'query' | 'body' | 'bearer';

export interface PresentedToken {
  place: CredentialPlace;
  token: string;
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
 * The one credential of a request, or undefined when none was given — the rule of the gateway
 * for our tokens and of identity for a social provider's.
 * Empty `access_token` values count as absent (clients send `access_token=` for "none"), but an
 * explicit `Authorization: Bearer` with nothing after it is a presented, invalid token.
 * Two or more tokens (in two places, or twice in one) are a 400: never guess which one counts.
 */
export function singleCredential(presented: PresentedToken[]): PresentedToken | undefined {
  const given = presented.filter((p) => p.place === 'bearer' || p.token !== '');
  if (given.length > 1) throw errors.credentialAmbiguous();
  return given[0];
}
