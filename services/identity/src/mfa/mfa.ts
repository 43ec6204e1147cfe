import { createHash, randomBytes } from 'node:crypto';
import { assertAdminRights, hasSecondFactor, errors, type Principal } from '@restgate/shared';
import { identityErrors } from '../errors';
import { actorOfUser, userSubject, verdictOf } from '../audit/audit-trail';
import { confirmPassword, type CheckContext, type Credentials } from '../accounts/authenticate';
import type { AccountsDeps, SecondFactorPort } from '../accounts/accounts-deps';
import { SECOND_FACTOR_RULES, type SecondFactorGuard } from './second-factor-guard';
import { notifyUser } from '../accounts/security-notice';
import { endSessionsOfUser, openSession, storedUserAgent, type SignedIn } from '../accounts/sessions';
import type { MfaCrypto, MfaFactorRecord, MfaRepository } from './mfa-ports';
import { getUser, isPasswordProven, type UserRecord } from '../accounts/user';

/** What the MFA module works with: the core's stores it needs, and its own. */
export interface MfaModuleDeps extends Pick<
  AccountsDeps,
  'users' | 'hasher' | 'backoff' | 'tokens' | 'sessions' | 'revocations' | 'sessionSettings' | 'notices' | 'noticeQueued' | 'audit'
> {
  /** Second factors and sign-ins waiting for one (always there: sign-in must see a factor even without the key). */
  mfa: MfaRepository;
  /** The bounds on guessing second factors (per challenge, per account). */
  secondFactors: SecondFactorGuard;
  /** TOTP and the MFA_ENCRYPTION_KEY; absent when the key is not set (then only the admin's switch-off is served). */
  mfaCrypto?: MfaCrypto;
}

/** The use cases that need the key. */
export type MfaDeps = MfaModuleDeps & { mfaCrypto: MfaCrypto };

/** Where a check of a second factor comes from: the request's id rides on the mail a check may send. */
export type MfaContext = CheckContext & { requestId?: string };

const CHALLENGE_TTL_MS = 5 * 60_000;
/** Enrolment without the password needs a session opened this recently (a stolen older token can't add a factor). */
export const RECENT_SIGN_IN_MS = 10 * 60_000;
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
export async function isMfaOn(deps: Pick<MfaModuleDeps, 'mfa'>, userId: string): Promise<boolean> {
  return (await deps.mfa.find(userId))?.enabled === true;
}

/**
 * The sign-in's second step, instead of a session: a 401 `mfa_required` with a single-use
 * `mfaToken` (5 minutes) for `POST /auth/mfa`.
 */
async function challenge(deps: Pick<MfaModuleDeps, 'mfa'>, user: UserRecord, amr: string[], userAgent?: string): Promise<never> {
  const mfaToken = randomBytes(32).toString('base64url');
  await deps.mfa.insertChallenge(sha256(mfaToken), {
    userId: user.id,
    // The password (or provider) was proven under this epoch: a change or reset since ends the challenge.
    credentialsEpoch: user.credentialsEpoch,
    amr,
    userAgent: storedUserAgent(userAgent),
    expiresAt: new Date(Date.now() + CHALLENGE_TTL_MS),
  });
  throw errors.mfaRequired(
    'This account has multi-factor sign-in on: send the mfaToken with a one-time code (or a recovery code) to POST /auth/mfa within 5 minutes.',
    mfaToken,
  );
}

/**
 * One check of a second factor of `user`, under the guard's bounds (second-factor-guard.ts): at
 * most 5 checks per challenge, and after 10 wrong codes in a row on the account, from any
 * address, its pending sign-ins end, its owner is mailed, and further checks wait. A TOTP code is
 * accepted within one step of drift and only once (its step, and every earlier one, is used up);
 * a recovery code once.
 */
async function checkSecondFactor(
  deps: MfaDeps,
  user: UserRecord,
  factor: MfaFactorRecord,
  proof: { code?: string; recoveryCode?: string },
  context: MfaContext,
  challengeKey?: string,
): Promise<'otp' | 'mfa'> {
  const check = await deps.secondFactors.reserve(user.id, challengeKey);
  if (check === 'spent') {
    if (challengeKey) await deps.mfa.deleteChallenge(challengeKey);
    throw identityErrors.mfaTokenInvalid();
  }
  let method: 'otp' | 'mfa' | null;
  try {
    method = await verifyProof(deps, factor, proof);
  } catch (err) {
    await check.release();
    throw err;
  }
  if (method) {
    await check.succeeded();
    return method;
  }
  if (check.failures >= SECOND_FACTOR_RULES.accountBound) {
    await deps.mfa.endChallenges(user.id);
    if (check.failures === SECOND_FACTOR_RULES.accountBound) await notifyUser(deps, user, 'mfa-locked', context.requestId);
  } else if (challengeKey && check.challengeChecks >= SECOND_FACTOR_RULES.perChallenge) {
    await deps.mfa.deleteChallenge(challengeKey);
  }
  throw identityErrors.wrongMfaCode();
}

async function verifyProof(
  deps: MfaDeps,
  factor: MfaFactorRecord,
  proof: { code?: string; recoveryCode?: string },
): Promise<'otp' | 'mfa' | null> {
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

async function loadCaller(deps: Pick<MfaModuleDeps, 'users'>, caller: Principal): Promise<UserRecord> {
  if (caller.kind !== 'user') throw identityErrors.needsUser();
  return getUser(deps, caller.id);
}

/**
 * A factor is added only by someone who just proved who they are: the password sent with the
 * token, or a session opened within RECENT_SIGN_IN_MS. An access token alone, stolen or left
 * behind, can't put another person's authenticator on the account.
 */
async function assertFreshProof(deps: MfaDeps, caller: Principal, user: UserRecord, password: string | undefined, context: CheckContext) {
  if (password !== undefined) {
    await confirmPassword(deps, user, { email: user.email, password }, context);
    return;
  }
  const session = caller.kind === 'user' && caller.sid ? await deps.sessions.findSession(caller.sid, new Date()) : null;
  if (!session || Date.now() - session.createdAt.getTime() > RECENT_SIGN_IN_MS) throw identityErrors.reauthenticationRequired();
}

/** `POST /users/me/mfa/totp`: a new secret, pending until confirmed (a second call replaces it). */
export async function startTotpEnrolment(
  deps: MfaDeps,
  caller: Principal,
  password: string | undefined,
  context: CheckContext,
): Promise<{ secret: string; otpauthUrl: string; qrSvg: string }> {
  const user = await loadCaller(deps, caller);
  await assertFreshProof(deps, caller, user, password, context);
  const enrolment = await deps.mfaCrypto.totp.generate(user.email);
  if (!(await deps.mfa.savePending(user.id, deps.mfaCrypto.sealSecret(enrolment.secret, user.id)))) throw identityErrors.mfaAlreadyOn();
  return enrolment;
}

/** `POST /users/me/mfa/totp/confirm`: a code of the pending secret turns MFA on and gives the recovery codes, once. */
export async function confirmTotpEnrolment(
  deps: MfaDeps,
  caller: Principal,
  code: string,
  context: MfaContext,
): Promise<{ recoveryCodes: string[] }> {
  const user = await loadCaller(deps, caller);
  const factor = await deps.mfa.find(user.id);
  if (!factor) throw identityErrors.mfaNotPending();
  if (factor.enabled) throw identityErrors.mfaAlreadyOn();
  await checkSecondFactor(deps, user, factor, { code }, context);
  const recoveryCodes = newRecoveryCodes();
  const enabled = await deps.mfa.enable(user.id, factor.sealedSecret, hashRecoveryCodes(deps, recoveryCodes));
  if (!enabled) throw identityErrors.mfaNotPending();
  await touchUser(deps, user.id);
  await deps.audit.record('auth.mfa.enabled', { outcome: 'success', subject: userSubject(user.id), details: { method: 'totp' } });
  await notifyUser(deps, user, 'mfa-enabled', context.requestId);
  return { recoveryCodes };
}

/**
 * `POST /auth/mfa`: the second step of a sign-in; the `mfaToken` is used up by a right code, or by
 * its fifth check. A password change, reset or "end all sessions" since the first step ends it,
 * and the session it opens carries the credentials epoch the first step was proven under.
 */
export async function completeMfaSignIn(
  deps: MfaDeps,
  input: { mfaToken: string; code?: string; recoveryCode?: string },
  context: MfaContext,
): Promise<SignedIn> {
  const tokenHash = sha256(input.mfaToken);
  const challenge = await deps.mfa.findChallenge(tokenHash);
  if (!challenge || challenge.expiresAt <= new Date()) throw identityErrors.mfaTokenInvalid();
  const user = await deps.users.findById(challenge.userId);
  const factor = user && (await deps.mfa.find(user.id));
  if (!user || !factor?.enabled || user.credentialsEpoch !== challenge.credentialsEpoch) throw identityErrors.mfaTokenInvalid();
  // Until the step is passed, nobody is proven: the actor is anonymous, the subject the user.
  const step = { actor: { kind: 'anonymous' as const, id: null }, subject: userSubject(user.id) };
  let method: string;
  try {
    method = await checkSecondFactor(deps, user, factor, input, context, tokenHash);
  } catch (err) {
    const verdict = verdictOf(err);
    if (verdict) await deps.audit.recordFailure('auth.mfa.failed', { ...step, outcome: 'failure', details: { reason: verdict.reason } });
    throw err;
  }
  if (!(await deps.mfa.claimChallenge(tokenHash, challenge.expiresAt))) throw identityErrors.mfaTokenInvalid();
  await deps.audit.record('auth.mfa.succeeded', { ...step, actor: actorOfUser(user), outcome: 'success', details: { method } });
  return openSession(deps, { ...user, credentialsEpoch: challenge.credentialsEpoch }, challenge.userAgent ?? undefined, [
    ...challenge.amr,
    method,
  ]);
}

/** `POST /users/me/mfa/recovery-codes`: from a session with a second factor, and a current code; the old codes end. */
export async function regenerateRecoveryCodes(
  deps: MfaDeps,
  caller: Principal,
  code: string,
  context: MfaContext,
): Promise<{ recoveryCodes: string[] }> {
  if (!hasSecondFactor(caller)) {
    throw errors.mfaRequired('New recovery codes need a session opened with a second factor: sign in again with a one-time code.');
  }
  const user = await loadCaller(deps, caller);
  const factor = await deps.mfa.find(user.id);
  if (!factor?.enabled) throw identityErrors.mfaOff();
  await checkSecondFactor(deps, user, factor, { code }, context);
  const recoveryCodes = newRecoveryCodes();
  await deps.mfa.replaceRecoveryCodes(user.id, hashRecoveryCodes(deps, recoveryCodes));
  await deps.audit.record('auth.recovery_codes.regenerated', { outcome: 'success', subject: userSubject(user.id) });
  await notifyUser(deps, user, 'recovery-codes-renewed', context.requestId);
  return { recoveryCodes };
}

/** `DELETE /users/me/mfa`: the password (HTTP Basic) and a code or a recovery code turn MFA off. */
export async function disableOwnMfa(
  deps: MfaDeps,
  caller: Principal,
  credentials: Credentials | null,
  proof: { code?: string; recoveryCode?: string },
  context: MfaContext,
): Promise<void> {
  const owner = await loadCaller(deps, caller);
  const user = await confirmPassword(deps, owner, credentials, context);
  const factor = await deps.mfa.find(user.id);
  if (!factor?.enabled) throw identityErrors.mfaOff();
  await checkSecondFactor(deps, user, factor, proof, context);
  await deps.mfa.disable(user.id);
  await touchUser(deps, user.id);
  await deps.audit.record('auth.mfa.disabled', { outcome: 'success', subject: userSubject(user.id), details: { by: 'user' } });
  await notifyUser(deps, user, 'mfa-disabled', context.requestId);
}

/**
 * `DELETE /users/:id/mfa` (admin): MFA off for a user who lost their factor, and every session of
 * theirs ends. Not for the admin's own factor: that takes the password and a code (DELETE /users/me/mfa).
 */
export async function adminDisableMfa(deps: MfaModuleDeps, caller: Principal, userId: string, requestId?: string): Promise<void> {
  // Holds even if an operator's ROUTE_POLICY opens the route.
  assertAdminRights(caller, identityErrors.notAdmin);
  if (caller.kind === 'user' && caller.id === userId) throw identityErrors.ownMfaByAdmin();
  const user = await getUser(deps, userId);
  if (!(await deps.mfa.disable(user.id))) throw identityErrors.mfaOff();
  const ended = await endSessionsOfUser(deps, user.id);
  await touchUser(deps, user.id);
  await deps.audit.record('auth.mfa.disabled', {
    outcome: 'success',
    subject: userSubject(user.id),
    details: { by: 'admin', sessions: ended },
  });
  await notifyUser(deps, user, 'mfa-disabled-by-admin', requestId);
}

/**
 * The core's second-factor port (accounts-deps.ts): sign-in asks whether MFA is on and lets this
 * module open the challenge; a password change or reset, "end all sessions" and a deletion end
 * the user's pending challenges (their first step was proven with what no longer counts).
 */
export function secondFactorPort(deps: Pick<MfaModuleDeps, 'mfa'>): SecondFactorPort {
  return {
    isOn: (userId) => isMfaOn(deps, userId),
    challenge: (user, amr, userAgent) => challenge(deps, user, amr, userAgent),
    endPending: (userId) => deps.mfa.endChallenges(userId),
  };
}

/**
 * A completed password reset proves the address: the account's wrong codes are forgotten, its
 * pending sign-ins end, and a factor put on while the password was not proven (whoever signed up
 * with someone else's address) goes with that password.
 */
export async function afterPasswordReset(
  deps: Pick<MfaModuleDeps, 'mfa' | 'secondFactors'>,
  before: Pick<UserRecord, 'id' | 'passwordHash' | 'passwordProven'>,
): Promise<void> {
  await deps.mfa.endChallenges(before.id);
  await deps.secondFactors.forget(before.id);
  if (!isPasswordProven(before)) await deps.mfa.disable(before.id);
}

/** GET /users/me shows whether MFA is on: a new user version moves its ETag. */
async function touchUser(deps: Pick<MfaModuleDeps, 'users'>, userId: string): Promise<void> {
  await deps.users.update(userId, {});
}
