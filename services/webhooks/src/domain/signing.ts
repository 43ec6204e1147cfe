import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/** A new signing secret as Standard Webhooks writes one: `whsec_` and 32 random bytes in base64. */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/**
 * The `webhook-signature` header of one attempt: `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`
 * under each secret that signs now (two during a rotation), space-separated. The standardwebhooks
 * package signs, so any receiver library of the scheme verifies it.
 */
export function signatureHeader(secrets: readonly string[], id: string, at: Date, body: string): string {
  return secrets.map((secret) => new Webhook(secret).sign(id, at, body)).join(' ');
}
