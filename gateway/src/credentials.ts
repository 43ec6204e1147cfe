export const ACCESS_TOKEN = 'access_token';

/**
 * Decodes one `application/x-www-form-urlencoded` component the way URLSearchParams does. Only
 * `+` and `%` escapes change anything: without them the component is its own decoding.
 */
function decodeComponent(component: string): string {
  if (!component.includes('%') && !component.includes('+')) return component;
  return new URLSearchParams(`x=${component}`).get('x') ?? '';
}

/**
 * Takes every `access_token` pair out of a query string or a form body and returns the values
 * and the other pairs untouched, byte for byte (`email[$ne]=x` stays exactly `email[$ne]=x`).
 * Works on the encoded text, so nothing but the removed pairs is ever re-encoded.
 */
export function takeAccessTokens(encoded: string): { tokens: string[]; rest: string } {
  if (encoded === '') return { tokens: [], rest: '' };
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

/**
 * How many times `name` is a key of the top-level object of `json`, a text that JSON.parse
 * already accepted. JSON.parse keeps the last of duplicate keys silently, so a body with two
 * tokens would otherwise pass as one: the caller refuses it like a token in two places.
 */
export function countTopLevelKeys(json: string, name: string): number {
  let depth = 0;
  let count = 0;
  for (let i = 0; i < json.length; i++) {
    const ch = json[i];
    if (ch === '{' || ch === '[') depth++;
    else if (ch === '}' || ch === ']') depth--;
    else if (ch === '"') {
      const start = i;
      for (i++; json[i] !== '"'; i++) if (json[i] === '\\') i++;
      if (depth !== 1) continue;
      let next = i + 1;
      while (/\s/.test(json[next] ?? '')) next++;
      // A key is a string followed by a colon; escapes (`access\u005ftoken`) count as what they spell.
      if (json[next] === ':' && JSON.parse(json.slice(start, i + 1)) === name) count++;
    }
  }
  return count;
}
