/** What multi-factor sign-in's use cases need from storage and cryptography (mfa.repository.ts, mfa-crypto.ts and totp.ts implement it). */

/** TOTP as authenticator apps do it (totp.ts implements it with `otpauth`). */
export interface TotpAuthenticator {
  /** A new secret (base32), its `otpauth://` URL and that URL as an SVG QR code. */
  generate(label: string): Promise<{ secret: string; otpauthUrl: string; qrSvg: string }>;
  /** The time step (30 s since the epoch) whose code this is, within one step of drift of `now` (ms); null: no match. */
  matchStep(secret: string, code: string, now: number): number | null;
}

/** A user's second factor as stored: the secret sealed, recovery codes only as keyed hashes. */
export interface MfaFactorRecord {
  userId: string;
  sealedSecret: string;
  enabled: boolean;
  /** The last time step accepted: a code of that step or an earlier one is refused. */
  lastStep: number;
  recoveryCodes: string[];
}

/** A sign-in waiting for its second factor: `mfaToken` is stored only as a hash. */
export interface MfaChallengeRecord {
  userId: string;
  /** The user's credentials epoch when the first factor was proven: the session opens with it. */
  credentialsEpoch: number;
  /** How the first factor was proven (`pwd`, or the social provider's name). */
  amr: string[];
  userAgent: string | null;
  expiresAt: Date;
}

/**
 * Where factors and challenges are kept. Every "once only" (a time step, a recovery code, an
 * `mfaToken`) is a unique-key insert, so one caller wins however many replicas race, on FerretDB too.
 */
export interface MfaRepository {
  find(userId: string): Promise<MfaFactorRecord | null>;
  /** Stores (or replaces) a pending enrolment; false when MFA is already on. */
  savePending(userId: string, sealedSecret: string): Promise<boolean>;
  /** Turns the pending enrolment with this secret on, with its recovery codes; false when it is no longer pending. */
  enable(userId: string, sealedSecret: string, recoveryCodes: string[]): Promise<boolean>;
  replaceRecoveryCodes(userId: string, recoveryCodes: string[]): Promise<void>;
  /** True for the one caller that uses this step first (and moves `lastStep`). */
  useStep(userId: string, step: number): Promise<boolean>;
  /** True for the one caller that uses this recovery code first (it leaves the user's list). */
  useRecoveryCode(userId: string, codeHash: string): Promise<boolean>;
  /** Removes the factor, its recovery codes and pending sign-ins; false when there was none. */
  disable(userId: string): Promise<boolean>;
  insertChallenge(tokenHash: string, challenge: MfaChallengeRecord): Promise<void>;
  findChallenge(tokenHash: string): Promise<MfaChallengeRecord | null>;
  /** True for the one caller that uses the challenge. */
  claimChallenge(tokenHash: string, expiresAt: Date): Promise<boolean>;
  /** Ends one challenge (its checks are used up). */
  deleteChallenge(tokenHash: string): Promise<void>;
  /** Ends every pending sign-in of the user. */
  endChallenges(userId: string): Promise<void>;
}

/** What MFA needs besides the identity deps: absent when MFA_ENCRYPTION_KEY is not set (its routes are not served). */
export interface MfaCrypto {
  totp: TotpAuthenticator;
  /** Seals and opens TOTP secrets (AES-256-GCM under MFA_ENCRYPTION_KEY, bound to the user id). */
  sealSecret(secret: string, userId: string): string;
  openSecret(sealed: string, userId: string): string | null;
  /** Keyed hash of a normalised recovery code. */
  hashRecoveryCode(code: string): string;
}
