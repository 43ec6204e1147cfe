/**
 * Throttles password guessing where the outcome is known (identity checks the password).
 *
 * Two counters, both kept in the shared store:
 * - per account *and* client address, failures in a row: after `freeFailures` each further attempt
 *   from that address must wait longer (doubling from `baseSeconds`, up to `maxSeconds`); a success
 *   resets it. The owner at another address is not slowed down by a guesser somewhere else.
 * - per account, failures from every address in a window (a looser ceiling, against guessing
 *   spread over many addresses). Past it, checks wait for the window's end: bounded, never a
 *   lock-out that outlives it.
 */
export interface SignInBackoff {
  /**
   * Throws a 429 (with `Retry-After`) when this account may not be tried from `address` yet;
   * otherwise says whether failures from `address` are on record (what `succeeded` would reset).
   */
  assertMayTry(email: string, address: string): Promise<{ failures: boolean }>;
  failed(email: string, address: string): Promise<void>;
  succeeded(email: string, address: string): Promise<void>;
}

export interface BackoffSettings {
  freeFailures: number;
  baseSeconds: number;
  maxSeconds: number;
}

/** The wait after `failures` failures in a row: none for the free ones, then doubling up to the cap. */
export function backoffSeconds(failures: number, settings: BackoffSettings): number {
  const over = failures - settings.freeFailures;
  if (over <= 0) return 0;
  return Math.min(settings.maxSeconds, settings.baseSeconds * 2 ** Math.min(over - 1, 30));
}
