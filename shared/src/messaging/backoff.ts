const BACKOFF_MIN_MS = 1_000;
const BACKOFF_MAX_MS = 60_000;

/**
 * When a relay tries a failed publish again: 1 s, 2 s, 4 s … up to a minute after `attempts`
 * tries, with ±20 % jitter so replicas do not retry in step.
 */
export function publishBackoff(attempts: number): number {
  const base = Math.min(BACKOFF_MAX_MS, BACKOFF_MIN_MS * 2 ** Math.max(0, attempts - 1));
  return Math.round(base * (0.8 + Math.random() * 0.4));
}
