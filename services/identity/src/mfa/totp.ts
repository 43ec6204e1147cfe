import { Secret, TOTP } from 'otpauth';
import QRCode from 'qrcode';
import type { TotpAuthenticator } from './mfa-ports';

/** What authenticator apps expect (RFC 6238's defaults, the only ones every app supports). */
const PARAMETERS = { algorithm: 'SHA1', digits: 6, period: 30 } as const;
/** One step of clock drift either way. */
const WINDOW = 1;

/** TOTP with the `otpauth` library, and the enrolment URL as an SVG QR code with `qrcode`. */
export function createTotpAuthenticator(issuer: string): TotpAuthenticator {
  const totp = (secret: Secret, label = 'restgate') => new TOTP({ issuer, label, secret, ...PARAMETERS });
  return {
    async generate(label) {
      // 160 bits: RFC 4226's recommended length for an HMAC-SHA1 key.
      const secret = new Secret({ size: 20 });
      const otpauthUrl = totp(secret, label).toString();
      const qrSvg = await QRCode.toString(otpauthUrl, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
      return { secret: secret.base32, otpauthUrl, qrSvg };
    },
    matchStep(secret, code, now) {
      const delta = totp(Secret.fromBase32(secret)).validate({ token: code, timestamp: now, window: WINDOW });
      return delta === null ? null : Math.floor(now / 1000 / PARAMETERS.period) + delta;
    },
  };
}
