import { parseAuthorization, singleCredential, type PresentedToken } from '@restgate/shared/http';
import { socialErrors } from './social-errors';

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
 * routes), by the gateway's own rule (shared `singleCredential`).
 */
export function readProviderToken(places: TokenPlaces): string {
  const authorization = parseAuthorization(places.authorization);
  const credential = singleCredential([
    ...values(places.body).map((token): PresentedToken => ({ place: 'body', token })),
    ...values(places.query).map((token): PresentedToken => ({ place: 'query', token })),
    ...(authorization?.scheme === 'bearer' ? [{ place: 'bearer' as const, token: authorization.token }] : []),
  ]);
  if (credential === undefined) throw socialErrors.credentialMissing();
  if (!TOKEN.test(credential.token)) throw socialErrors.credentialMalformed();
  return credential.token;
}

function values(value: string | string[] | undefined): string[] {
  return Array.isArray(value) ? value : value === undefined ? [] : [value];
}
