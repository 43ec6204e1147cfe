export interface BasicCredentials {
  email: string;
  password: string;
}

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * Reads `Authorization: Basic base64(email:password)` (RFC 7617). Null when the header is missing
 * or malformed; the caller answers that with the same 401 as a wrong password.
 */
export function parseBasicCredentials(header: string | undefined): BasicCredentials | null {
  if (!header) return null;
  const match = /^Basic[ ]+(\S+)[ ]*$/i.exec(header);
  const encoded = match?.[1];
  if (!encoded || encoded.length % 4 !== 0 || !BASE64.test(encoded)) return null;
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return null;
  const email = decoded.slice(0, colon).trim().toLowerCase();
  const password = decoded.slice(colon + 1);
  return email && password ? { email, password } : null;
}
