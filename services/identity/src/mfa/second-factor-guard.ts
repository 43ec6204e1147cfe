/**
 * Bounds the guessing of second factors. Only someone who already has the password (or the social
 * account) reaches a code check, so the owner-friendly rule of the password back-off (a new
 * address always gets one try) does not apply here; two hard bounds do:
 * - per challenge (`mfaToken`): at most `perChallenge` checks; then the challenge is used up;
 * - per account, from every address together: after `accountBound` wrong second factors in a row
 *   the account's pending challenges end, its owner gets a mail, and each further check waits,
 *   the wait doubling from `baseSeconds` up to `maxSeconds`, until a right code or a password reset.
 *
 * A check is reserved before the code is looked at and counts as wrong until settled, so a burst
 * of concurrent checks gets no more than checks one after the other would.
 */
export interface SecondFactorGuard {
  /**
   * Reserves one check for `userId` (of the challenge `challengeKey`, if the check finishes a
   * sign-in). Throws a 429 with `Retry-After` while the account waits; answers `spent` when the
   * challenge has had its checks.
   */
  reserve(userId: string, challengeKey?: string): Promise<SecondFactorTry | 'spent'>;
  /** A password reset: the account's wrong codes are forgotten, and any wait ends. */
  forget(userId: string): Promise<void>;
}

export interface SecondFactorTry {
  /** Wrong second factors of the account in a row, this check included (while it is not settled). */
  readonly failures: number;
  /** Checks of the challenge so far, this one included (0 without a challenge). */
  readonly challengeChecks: number;
  /** The code was right: the account's count ends. */
  succeeded(): Promise<void>;
  /** No verdict was reached (an error): the check is given back. */
  release(): Promise<void>;
}

export interface SecondFactorRules {
  perChallenge: number;
  accountBound: number;
  baseSeconds: number;
  maxSeconds: number;
}

/** The rules as documented in docs/api.md ("Multi-factor sign-in"). */
export const SECOND_FACTOR_RULES: SecondFactorRules = { perChallenge: 5, accountBound: 10, baseSeconds: 60, maxSeconds: 86_400 };

/** The wait once `failures` wrong codes in a row reached the bound: doubling from the base, capped. */
export function lockSeconds(failures: number, rules: SecondFactorRules): number {
  const over = failures - rules.accountBound;
  if (over < 0) return 0;
  return Math.min(rules.maxSeconds, rules.baseSeconds * 2 ** Math.min(over, 30));
}
