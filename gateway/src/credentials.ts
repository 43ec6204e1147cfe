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
