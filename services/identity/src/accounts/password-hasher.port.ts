/**
 * Whose work it is: sign-ins have a share of the hashing capacity that the rest (sign-ups,
 * password changes and resets) can never take, and the first turn at a free worker.
 */
export type HashLane = 'sign-in' | 'other';

/** Hashes (Argon2id) and compares passwords (off the event loop, in a bounded queue: `password-hasher.ts`). */
export interface PasswordHasher {
  /**
   * `signal`: the request's; once aborted (the client went away), a hash waiting for a worker is
   * dropped, and a running one finishes but its result is refused (`client_closed`).
   */
  hash(password: string, signal?: AbortSignal, lane?: HashLane): Promise<string>;
  /**
   * True when `password` matches `hash`. With `hash` null (no such user) it compares against a
   * dummy hash at the current costs and answers false, so both failures take about the same time.
   * `hash` may be bcrypt (made before Argon2id) or Argon2id of any costs.
   */
  compare(password: string, hash: string | null, signal?: AbortSignal, lane?: HashLane): Promise<boolean>;
  /** True when `hash` is not Argon2id at the current costs (bcrypt, or older costs): a sign-in replaces it. */
  needsRehash(hash: string): boolean;
  /** Checks in progress (running or waiting), those waiting for a worker, those done since start, and the worker threads started. */
  stats(): { inFlight: number; queued: number; completed: number; threadsStarted: number };
  close(): Promise<void>;
}
