import { createHash, randomBytes } from 'node:crypto';
import { hasSecondFactor, errors, type Principal } from '@restgate/shared';
import { identityErrors } from '../errors';
import { confirmPassword, type CheckContext, type Credentials } from './authenticate';
import type { IdentityDeps } from './identity-deps';
import { endSessionsOfUser, openSession, storedUserAgent, type SignedIn } from './sessions';
import type { MfaCrypto, MfaFactorRecord } from './mfa-ports';
import { getUser, type UserRecord } from './user';

export type MfaDeps = IdentityDeps & { mfaCrypto: MfaCrypto };

const CHALLENGE_TTL_MS = 5 * 60_000;
const RECOVERY_CODES = 10;
// RFC 4648's base32 alphabet in lower case: 32 symbols, so `byte % 32` is unbiased, and 10 characters are 50 bits.
const RECOVERY_ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';

function sha256(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

/** A recovery code as typed: case, hyphens and spaces don't matter. */
export function normalizeRecoveryCode(code: string): string {
  return code.toLowerCase().replace(/[\s-]/g, '');
}

function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODES }, () => {
    const chars = [...randomBytes(10)].map((byte) => RECOVERY_ALPHABET[byte % 32]).join('');
    return `${chars.slice(0, 5)}-${chars.slice(5)}`;
  });
}

/** Recovery codes as stored: keyed hashes of their typed-in form. */
function hashRecoveryCodes(deps: Pick<MfaDeps, 'mfaCrypto'>, codes: string[]): string[] {
  return codes.map((code) => deps.mfaCrypto.hashRecoveryCode(normalizeRecoveryCode(code)));
}

/** Whether the user has MFA on (the sign-in rule; the repository is there with or without the key). */
export async function isMfaOn(deps: Pick<IdentityDeps, 'mfa'>, userId: string): Promise<boolean> {
  return (await deps.mfa.find(userId))?.enabled === true;
}

/**
 * The sign-in's last step: a user with MFA on gets no session yet but a 401 `mfa_required` with a
 * single-use `mfaToken` (5 minutes) for `POST /auth/mfa`; anyone else gets the session.
 */
export async function openSessionOrChallenge(deps: IdentityDeps, user: UserRecord, amr: string[], userAgent?: string): Promise<SignedIn> {
  if (!(await isMfaOn(deps, user.id))) return openSession(deps, user, userAgent, amr);
  const mfaToken = randomBytes(32).toString('base64url');
  await deps.mfa.insertChallenge(sha256(mfaToken), {
    userId: user.id,
    amr,
    userAgent: storedUserAgent(userAgent),
    expiresAt: new Date(Date.now() + CHALLENGE_TTL_MS),
  });
  throw errors.mfaRequired('This account has multi-factor sign-in on: send the mfaToken with a one-time code (or a recovery code) to POST /auth/mfa within 5 minutes.', mfaToken);
}

/**
 * One check of a second factor of `user`, inside the sign-in back-off of their account: a wrong
 * code counts like a wrong password, a right one resets the count. A TOTP code is accepted within
 * one step of drift and only once (its step, and every earlier one, is used up); a recovery code once.
 */
async function checkSecondFactor(
  deps: MfaDeps,
  user: UserRecord,
  factor: MfaFactorRecord,
  proof: { code?: string; recoveryCode?: string },
  context: CheckContext,
): Promise<'otp' | 'mfa'> {
  const reservation = await deps.backoff.reserve(user.email, context.clientAddress);
  let method: 'otp' | 'mfa' | null;
  try {
    method = await verifyProof(deps, factor, proof);
  } catch (err) {
    await reservation.release();
    throw err;
  }
  if (!method) throw identityErrors.wrongMfaCode();
  await reservation.succeeded();
  return method;
}

async function verifyProof(deps: MfaDeps, factor: MfaFactorRecord, proof: { code?: string; recoveryCode?: string }): Promise<'otp' | 'mfa' | null> {
  if (proof.code !== undefined) {
    const secret = deps.mfaCrypto.openSecret(factor.sealedSecret, factor.userId);
    // Not the client's fault: the key changed since enrolment (a generic 500, logged).
    if (secret === null) throw new Error('a TOTP secret does not open with MFA_ENCRYPTION_KEY (was the key changed?)');
    const step = deps.mfaCrypto.totp.matchStep(secret, proof.code.replace(/\s/g, ''), Date.now());
    if (step === null || step <= factor.lastStep) return null;
    return (await deps.mfa.useStep(factor.userId, step)) ? 'otp' : null;
  }
  if (proof.recoveryCode !== undefined && factor.enabled) {
    const hash = deps.mfaCrypto.hashRecoveryCode(normalizeRecoveryCode(proof.recoveryCode));
    if (!factor.recoveryCodes.includes(hash)) return null;
    return (await deps.mfa.useRecoveryCode(factor.userId, hash)) ? 'mfa' : null;
  }
  return null;
}

async function loadCaller(deps: IdentityDeps, caller: Principal): Promise<UserRecord> {
  if (caller.kind !== 'user') throw identityErrors.needsUser();
  return getUser(deps, caller.id);
}

/** `POST /users/me/mfa/totp`: a new secret, pending until confirmed (a second call replaces it). */
export async function startTotpEnrolment(deps: MfaDeps, caller: Principal): Promise<{ secret: string; otpauthUrl: string; qrSvg: string }> {
  const user = await loadCaller(deps, caller);
  const enrolment = await deps.mfaCrypto.totp.generate(user.email);
  if (!(await deps.mfa.savePending(user.id, deps.mfaCrypto.sealSecret(enrolment.secret, user.id)))) throw identityErrors.mfaAlreadyOn();
  return enrolment;
}

/** `POST /users/me/mfa/totp/confirm`: a code of the pending secret turns MFA on and gives the recovery codes, once. */
export async function confirmTotpEnrolment(deps: MfaDeps, caller: Principal, code: string, context: CheckContext): Promise<{ recoveryCodes: string[] }> {
  const user = await loadCaller(deps, caller);
  const factor = await deps.mfa.find(user.id);
  if (!factor) throw identityErrors.mfaNotPending();
  if (factor.enabled) throw identityErrors.mfaAlreadyOn();
  await checkSecondFactor(deps, user, factor, { code }, context);
  const recoveryCodes = newRecoveryCodes();
  const enabled = await deps.mfa.enable(user.id, factor.sealedSecret, hashRecoveryCodes(deps, recoveryCodes));
  if (!enabled) throw identityErrors.mfaNotPending();
  await touchUser(deps, user.id);
  return { recoveryCodes };
}

/** `POST /auth/mfa`: the second step of a sign-in; the `mfaToken` is used up only by a right code. */
export async function completeMfaSignIn(
  deps: MfaDeps,
  input: { mfaToken: string; code?: string; recoveryCode?: string },
  context: CheckContext,
): Promise<SignedIn> {
  const tokenHash = sha256(input.mfaToken);
  const challenge = await deps.mfa.findChallenge(tokenHash);
  if (!challenge || challenge.expiresAt <= new Date()) throw identityErrors.mfaTokenInvalid();
  const user = await deps.users.findById(challenge.userId);
  const factor = user && (await deps.mfa.find(user.id));
  if (!user || !factor?.enabled) throw identityErrors.mfaTokenInvalid();
  const method = await checkSecondFactor(deps, user, factor, input, context);
  if (!(await deps.mfa.claimChallenge(tokenHash, challenge.expiresAt))) throw identityErrors.mfaTokenInvalid();
  return openSession(deps, user, challenge.userAgent ?? undefined, [...challenge.amr, method]);
}

/** `POST /users/me/mfa/recovery-codes`: from a session with a second factor, and a current code; the old codes end. */
export async function regenerateRecoveryCodes(deps: MfaDeps, caller: Principal, code: string, context: CheckContext): Promise<{ recoveryCodes: string[] }> {
  if (!hasSecondFactor(caller)) {
    throw errors.mfaRequired('New recovery codes need a session opened with a second factor: sign in again with a one-time code.');
  }
  const user = await loadCaller(deps, caller);
  const factor = await deps.mfa.find(user.id);
  if (!factor?.enabled) throw identityErrors.mfaOff();
  await checkSecondFactor(deps, user, factor, { code }, context);
  const recoveryCodes = newRecoveryCodes();
  await deps.mfa.replaceRecoveryCodes(user.id, hashRecoveryCodes(deps, recoveryCodes));
  return { recoveryCodes };
}

/** `DELETE /users/me/mfa`: the password (HTTP Basic) and a code or a recovery code turn MFA off. */
export async function disableOwnMfa(
  deps: MfaDeps,
  caller: Principal,
  credentials: Credentials | null,
  proof: { code?: string; recoveryCode?: string },
  context: CheckContext,
): Promise<void> {
  const owner = await loadCaller(deps, caller);
  const user = await confirmPassword(deps, owner, credentials, context);
  const factor = await deps.mfa.find(user.id);
  if (!factor?.enabled) throw identityErrors.mfaOff();
  await checkSecondFactor(deps, user, factor, proof, context);
  await deps.mfa.disable(user.id);
  await touchUser(deps, user.id);
}

/** `DELETE /users/:id/mfa` (admin): MFA off for a user who lost their factor, and every session of theirs ends. */
export async function adminDisableMfa(deps: IdentityDeps, caller: Principal, userId: string): Promise<void> {
  // Holds even if an operator's ROUTE_POLICY opens the route.
  if (caller.kind !== 'user' || caller.role !== 'admin') throw identityErrors.notAdmin();
  const user = await getUser(deps, userId);
  if (!(await deps.mfa.disable(user.id))) throw identityErrors.mfaOff();
  await endSessionsOfUser(deps, user.id);
  await touchUser(deps, user.id);
}

/** GET /users/me shows whether MFA is on: a new user version moves its ETag. */
async function touchUser(deps: Pick<IdentityDeps, 'users'>, userId: string): Promise<void> {
  await deps.users.update(userId, {});
}
