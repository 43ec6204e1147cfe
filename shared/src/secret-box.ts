import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Authenticated encryption (AES-256-GCM, node:crypto) for the few secrets a service must be able
 * to read back: in identity, TOTP secrets (under MFA_ENCRYPTION_KEY) and a refresh token's
 * successor during the retry grace (under a key derived from the token it succeeds, which is
 * stored only as a hash); in webhooks, the endpoints' signing secrets (under
 * WEBHOOK_ENCRYPTION_KEY). `context` is bound as associated data, so a sealed value copied to
 * another user, token or endpoint does not open.
 */
export interface SecretBox {
  seal(plain: string, context: string): string;
  /** The plain text, or null when the box was sealed under another key or context, or is malformed. */
  open(sealed: string, context: string): string | null;
}

const VERSION = 'v1';

/** A box whose key is derived (HKDF-SHA256) from `ikm` for one `purpose`: one key never serves two uses. */
export function createSecretBox(ikm: string, purpose: string): SecretBox {
  const key = Buffer.from(hkdfSync('sha256', Buffer.from(ikm, 'utf8'), Buffer.alloc(0), `restgate ${purpose}`, 32));
  return {
    seal(plain, context) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(Buffer.from(context, 'utf8'));
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return [VERSION, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join('.');
    },
    open(sealed, context) {
      const [version, iv, tag, body, extra] = sealed.split('.');
      if (version !== VERSION || !iv || !tag || body === undefined || extra !== undefined) return null;
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
        decipher.setAAD(Buffer.from(context, 'utf8'));
        decipher.setAuthTag(Buffer.from(tag, 'base64url'));
        return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
      } catch {
        return null;
      }
    },
  };
}

/**
 * A keyed hash (HMAC-SHA256 under a key derived from `ikm`) for high-entropy codes that are only
 * ever compared: a copy of the database alone does not let anyone test guesses offline.
 */
export function createKeyedHash(ikm: string, purpose: string): (value: string) => string {
  const key = Buffer.from(hkdfSync('sha256', Buffer.from(ikm, 'utf8'), Buffer.alloc(0), `restgate ${purpose}`, 32));
  return (value) => createHmac('sha256', key).update(value, 'utf8').digest('hex');
}
