import type { MfaCrypto } from './mfa-ports';
import { createKeyedHash, createSecretBox } from '@restgate/shared';
import { createTotpAuthenticator } from './totp';

/** TOTP, and MFA_ENCRYPTION_KEY split (HKDF) into a key for the secrets and one for the recovery-code hashes. */
export function createMfaCrypto(key: string, issuer: string): MfaCrypto {
  const box = createSecretBox(key, 'totp secret');
  return {
    totp: createTotpAuthenticator(issuer),
    sealSecret: (secret, userId) => box.seal(secret, `totp:${userId}`),
    openSecret: (sealed, userId) => box.open(sealed, `totp:${userId}`),
    hashRecoveryCode: createKeyedHash(key, 'recovery code'),
  };
}
