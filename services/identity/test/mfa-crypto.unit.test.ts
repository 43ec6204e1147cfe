import { ConfigError, loadConfig } from '@restgate/shared';
import { identityConfigSchema } from '../src/config';
import { createMfaCrypto } from '../src/mfa/mfa-crypto';
import { createSecretBox } from '@restgate/shared';

const KEY = 'k'.repeat(40);

describe('the sealed TOTP secret', () => {
  const crypto = createMfaCrypto(KEY, 'restgate');

  test('when sealed, then the box holds neither the secret nor its bytes, and opens only for the same user under the same key', () => {
    const secret = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
    const sealed = crypto.sealSecret(secret, 'user-a');

    expect(sealed).not.toContain(secret);
    expect(sealed).not.toContain(Buffer.from(secret).toString('base64url'));
    expect(crypto.openSecret(sealed, 'user-a')).toBe(secret);
    expect(crypto.openSecret(sealed, 'user-b')).toBeNull();
    expect(createMfaCrypto('x'.repeat(40), 'restgate').openSecret(sealed, 'user-a')).toBeNull();
  });

  test('when a sealed box is changed or malformed, then it does not open', () => {
    const sealed = crypto.sealSecret('JBSWY3DPEHPK3PXP', 'user-a');
    const parts = sealed.split('.');
    const body = Buffer.from(parts[3]!, 'base64url');
    body[0] = body[0]! ^ 1;

    expect(crypto.openSecret([parts[0], parts[1], parts[2], body.toString('base64url')].join('.'), 'user-a')).toBeNull();
    expect(crypto.openSecret('v1.only.three', 'user-a')).toBeNull();
    expect(crypto.openSecret('not a box', 'user-a')).toBeNull();
  });

  test('two seals of one secret differ (a fresh IV each)', () => {
    expect(crypto.sealSecret('JBSWY3DPEHPK3PXP', 'u')).not.toBe(crypto.sealSecret('JBSWY3DPEHPK3PXP', 'u'));
  });

  test('a recovery code hash is keyed: another key gives another hash', () => {
    expect(crypto.hashRecoveryCode('abcdefghij')).toMatch(/^[0-9a-f]{64}$/);
    expect(crypto.hashRecoveryCode('abcdefghij')).not.toBe(createMfaCrypto('x'.repeat(40), 'restgate').hashRecoveryCode('abcdefghij'));
  });

  test('keys are derived per purpose: a box of one purpose does not open as another', () => {
    const sealed = createSecretBox(KEY, 'refresh successor').seal('token', 'ctx');
    expect(createSecretBox(KEY, 'totp secret').open(sealed, 'ctx')).toBeNull();
  });
});

describe('TOTP codes (otpauth)', () => {
  const { totp } = createMfaCrypto(KEY, 'restgate');
  // RFC 6238 appendix B, SHA-1: the secret "12345678901234567890", 59 s → 94287082 (8 digits; 6: 287082).
  const RFC_SECRET = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';

  test('when the code of the RFC 6238 test vector is checked at its time, then it matches that step; one step either side too, two steps off not', () => {
    expect(totp.matchStep(RFC_SECRET, '287082', 59_000)).toBe(1);
    expect(totp.matchStep(RFC_SECRET, '287082', 59_000 + 30_000)).toBe(1);
    expect(totp.matchStep(RFC_SECRET, '287082', 59_000 - 30_000)).toBe(1);
    expect(totp.matchStep(RFC_SECRET, '287082', 59_000 + 60_000)).toBeNull();
  });

  test('an enrolment has a 160-bit base32 secret, an otpauth URL with the issuer and account, and an SVG', async () => {
    const enrolment = await totp.generate('ada@example.com');
    expect(enrolment.secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(enrolment.otpauthUrl).toMatch(/^otpauth:\/\/totp\/restgate:ada%40example\.com\?/);
    expect(enrolment.otpauthUrl).toContain(`secret=${enrolment.secret}`);
    expect(enrolment.qrSvg).toMatch(/^<svg/);
  });
});

describe('MFA config', () => {
  const minimal = {
    MONGODB_URL: 'mongodb://127.0.0.1:27017',
    AMQP_URL: 'amqp://127.0.0.1:5672',
    REDIS_URL: 'redis://127.0.0.1:6379',
    PRINCIPAL_SECRET: 'p'.repeat(32),
    JWT_SECRET: 'j'.repeat(32),
  };
  const problemsOf = (env: Record<string, string>) => {
    try {
      loadConfig(identityConfigSchema, env);
      return [];
    } catch (err) {
      if (err instanceof ConfigError) return err.problems;
      throw err;
    }
  };

  test('the defaults: no key (MFA off), a 10 s refresh retry grace', () => {
    expect(loadConfig(identityConfigSchema, minimal)).toMatchObject({ MFA_ENCRYPTION_KEY: '', REFRESH_REUSE_GRACE_SECONDS: 10 });
  });

  test('a short key, or one equal to JWT_SECRET, stops the start naming the key', () => {
    expect(problemsOf({ ...minimal, MFA_ENCRYPTION_KEY: 'short' }).join(' ')).toMatch(/MFA_ENCRYPTION_KEY/);
    expect(problemsOf({ ...minimal, MFA_ENCRYPTION_KEY: 'j'.repeat(32) }).join(' ')).toMatch(/MFA_ENCRYPTION_KEY must differ/);
  });
});
