import { Joi } from '@restgate/shared';

/** Six digits as an authenticator app shows them (a space in the middle, as some apps print it, is allowed). */
const code = Joi.string()
  .pattern(/^[0-9]{3} ?[0-9]{3}$/)
  .description("The authenticator app's current six-digit code (RFC 6238: SHA-1, 30 s). Each code works once.")
  .example('123456');
const recoveryCode = Joi.string()
  .pattern(/^[A-Za-z2-7]{5}-?[A-Za-z2-7]{5}$/)
  .description(
    'One of the recovery codes given when MFA was turned on (or last renewed); each works once. Case and the hyphen do not matter.',
  )
  .example('k7cq2-mx4pa');

/**
 * `POST /users/me/mfa/totp`: the account's current password, unless the session was opened within
 * the last 10 minutes. In the body rather than as HTTP Basic, so that the token may stay in
 * `Authorization: Bearer` (the only place a browser app keeps it).
 */
export const enrolmentBody = Joi.object<{ password?: string }>({
  password: Joi.string()
    .min(1)
    .max(1024)
    .description("The account's current password: needed unless the session was opened within the last 10 minutes."),
});

/** `POST /users/me/mfa/totp/confirm` and `POST /users/me/mfa/recovery-codes`. */
export const codeBody = Joi.object<{ code: string }>({ code: code.required() });

/** `POST /auth/mfa`: the sign-in's `mfaToken` and one second factor. */
export const mfaSignInBody = Joi.object<{ mfaToken: string; code?: string; recoveryCode?: string }>({
  mfaToken: Joi.string()
    .max(512)
    .required()
    .description('The `mfaToken` of the 401 `mfa_required` that POST /auth (or a social sign-in) answered: single use, valid 5 minutes.')
    .example('pX3a1q2w3e4r5t6y7u8i9o0pA1s2d3f4g5h6j7k8l9z'),
  code,
  recoveryCode,
})
  .xor('code', 'recoveryCode')
  .description('`mfaToken` and exactly one of `code` and `recoveryCode`.');

/** `DELETE /users/me/mfa`: one second factor besides the password. */
export const disableMfaBody = Joi.object<{ code?: string; recoveryCode?: string }>({ code, recoveryCode })
  .xor('code', 'recoveryCode')
  .description('Exactly one of `code` and `recoveryCode`.');

export const totpEnrolmentSchema = Joi.object({
  secret: Joi.string().description('The shared secret, base32 (RFC 4648), for typing into an app by hand. Shown once.'),
  otpauthUrl: Joi.string().description(
    '`otpauth://totp/…` URL with issuer, account, secret, SHA1, 6 digits, 30 s: what the QR code holds.',
  ),
  qrSvg: Joi.string().description('The `otpauthUrl` as a QR code, an SVG document to show for a phone to scan.'),
}).description('A pending TOTP enrolment: MFA is on once POST /users/me/mfa/totp/confirm accepts a code of this secret.');

export const recoveryCodesSchema = Joi.object({
  recoveryCodes: Joi.array()
    .items(Joi.string().example('k7cq2-mx4pa'))
    .description('10 single-use recovery codes, shown only now (stored only as hashes): each signs in once instead of a code.'),
});
