/** Hashes and compares passwords (off the event loop: `crypto/password-hasher.ts`). */
export interface PasswordHasher {
  hash(password: string): Promise<string>;
  /**
   * True when `password` matches `hash`. With `hash` null (no such user) it compares against a
   * dummy hash of the same cost and answers false, so both failures take about the same time.
   */
  compare(password: string, hash: string | null): Promise<boolean>;
  close(): Promise<void>;
}
