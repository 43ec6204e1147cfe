/**
 * Throttles password guessing where the outcome is known (identity checks the password).
 *
 * Two counters, both kept in the shared store:
 * - per account *and* client address, failures in a row: after `freeFailures` each further attempt
 *   from that address must wait longer (doubling from `baseSeconds`, up to `maxSeconds`); a success
 *   resets it. The owner at another address is not slowed down by a guesser somewhere else.
 * - per account, failures from every address in a window (a looser ceiling, against guessing
 *   spread over many addresses). Past it, addresses with failures on record wait for the window's
 *   end; an address with none still gets its check, so the owner's right password is never
 *   refused by it: it slows guessing down (one try per new address), it locks nobody out.
 *
 * A try is reserved before its check, atomically (one step in the store for the decision and both
 * counts), and counts as a failure until it is settled: concurrent tries see each other, so a
 * burst gets no more checks than tries one after the other would.
 */
export interface SignInBackoff {
  /** Throws a 429 (with `Retry-After`) when this account may not be tried from `address` yet; otherwise reserves the try. */
  reserve(email: string, address: string): Promise<BackoffReservation>;
}

export interface BackoffReservation {
  /** The password was right: the address's failures in a row end, and the try is not held against the account. */
  succeeded(): Promise<void>;
  /** No verdict was reached (the client left, no hashing capacity, a failing database): the try is given back. */
  release(): Promise<void>;
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
