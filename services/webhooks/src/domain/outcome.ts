/** What one attempt at a delivery came to, as the log shows it. */
export interface Attempt {
  at: Date;
  /** The receiver's status code; absent when no answer came (network error, timeout, refused address). */
  status?: number;
  /** Why there was no answer, or why the answer failed (`redirect not followed`). */
  error?: string;
  durationMs: number;
  /** The first 4 KiB of the answer's body. */
  response?: string;
  /** The wait the receiver asked for (Retry-After), in ms. */
  retryAfterMs?: number;
}

/** Statuses a later attempt may change: a timeout, too many requests, the receiver's own failure. */
export function retriable(attempt: Attempt): boolean {
  if (attempt.status === undefined) return attempt.error !== undefined && !attempt.error.startsWith('address not allowed');
  return attempt.status === 408 || attempt.status === 429 || attempt.status >= 500;
}

export const succeeded = (attempt: Attempt): boolean => attempt.status !== undefined && attempt.status >= 200 && attempt.status < 300;

/** The longest wait a Retry-After can set. */
const RETRY_AFTER_CAP_MS = 86_400_000;

/**
 * When to try again after the `failures`-th failed attempt (1 for the first), or null when the
 * schedule is spent or the failure is final (another 4xx, a redirect, a refused address). A
 * Retry-After the receiver sent (429, 503) is honoured when it asks for longer than the schedule.
 */
export function nextAttemptAt(attempt: Attempt, failures: number, schedule: readonly number[]): Date | null {
  if (!retriable(attempt)) return null;
  const wait = schedule[failures - 1];
  if (wait === undefined) return null;
  const asked = Math.min(attempt.retryAfterMs ?? 0, RETRY_AFTER_CAP_MS);
  return new Date(attempt.at.getTime() + attempt.durationMs + Math.max(wait, asked));
}

/** Retry-After as seconds or an HTTP date → ms from `now`; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1_000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
