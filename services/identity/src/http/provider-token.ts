import { errors } from '@restgate/shared';
import { socialErrors } from '../domain/social/social-errors';

/** Printable ASCII without spaces, as OAuth 2.0 tokens are (RFC 6750 b64token, and then some). */
const TOKEN = /^[\x21-\x7e]{1,4096}$/;

export interface TokenPlaces {
  body?: string | string[];
  query?: string | string[];
  authorization?: string;
}

/**
 * The provider's access token, from exactly one of: `access_token` in the body, in the query
 * string, or `Authorization: Bearer` (the gateway passes all three through untouched on provider
 * routes). The rules are the gateway's: an empty `access_token` counts as absent, a bare `Bearer`
 * as a presented bad token, two tokens (in two places, or twice in one) as a 400.
 */
export function readProviderToken(places: TokenPlaces): string {
  const given = [...values(places.body), ...values(places.query), ...bearer(places.authorization)];
  if (given.length > 1) throw errors.credentialAmbiguous();
  const token = given[0];
  if (token === undefined) throw socialErrors.credentialMissing();
  if (!TOKEN.test(token)) throw socialErrors.credentialMalformed();
  return token;
}

function values(value: string | string[] | undefined): string[] {
  return (Array.isArray(value) ? value : value === undefined ? [] : [value]).filter((token) => token !== '');
}

function bearer(header: string | undefined): string[] {
  const match = header === undefined ? null : /^\s*(\S+)(?:\s+(.*))?$/.exec(header);
  return match?.[1]?.toLowerCase() === 'bearer' ? [(match[2] ?? '').trim()] : [];
}
