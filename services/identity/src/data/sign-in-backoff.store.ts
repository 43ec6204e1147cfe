import { createHash } from 'node:crypto';
import { rateLimited, type Quota, type RateLimits } from '@restgate/shared';
import { RateLimiterMemory, RateLimiterRedis, type RateLimiterAbstract, type RateLimiterRes } from 'rate-limiter-flexible';
import { backoffSeconds, type BackoffSettings, type SignInBackoff } from '../domain/sign-in-backoff';

/** The e-mail never goes into Redis as it is: its hash keys the counters. */
const accountKey = (email: string) => createHash('sha256').update(email).digest('base64url').slice(0, 22);

/**
 * The back-off on rate-limiter-flexible counters in Redis. While Redis does not answer, the same
 * counters run in this process (logged and counted by `limits`): guessing stays throttled per
 * replica rather than unlimited, and the owner is not locked out by an outage.
 */
export function createSignInBackoff(limits: RateLimits, settings: BackoffSettings & { account: Quota }): SignInBackoff {
  const pair = (shape: { keyPrefix: string; points: number; duration: number }) => ({
    redis: new RateLimiterRedis({ ...shape, storeClient: limits.store, rejectIfRedisNotReady: true }),
    memory: new RateLimiterMemory(shape),
  });
  // Failures in a row per account and address, remembered for as long as the longest wait.
  const streak = pair({ keyPrefix: `${limits.keyPrefix}:pw-streak`, points: 1_000_000, duration: Math.max(3_600, settings.maxSeconds * 2) });
  // The wait itself: `block` marks it, `get` reads it.
  const wait = pair({ keyPrefix: `${limits.keyPrefix}:pw-wait`, points: 1, duration: 1 });
  const account = pair({ keyPrefix: `${limits.keyPrefix}:pw-account`, points: settings.account.points, duration: settings.account.seconds });

  const use = <T>(
    name: string,
    limiter: { redis: RateLimiterAbstract; memory: RateLimiterAbstract },
    op: (l: RateLimiterAbstract) => Promise<T>,
  ) =>
    limits.guarded(
      name,
      () => op(limiter.redis),
      () => op(limiter.memory),
    );

  const refuse = (name: string, limit: number, windowSeconds: number, res: RateLimiterRes, detail: string) => {
    limits.recordLimited(name);
    const resetSeconds = Math.max(1, Math.ceil(res.msBeforeNext / 1000));
    return rateLimited(
      { name, allowed: false, limit, remaining: 0, windowSeconds, resetSeconds },
      undefined,
      `${detail} Try again in ${resetSeconds} s.`,
    );
  };

  return {
    async assertMayTry(email, address) {
      const key = accountKey(email);
      // One round trip for the three (the client pipelines commands sent together).
      const [waiting, tried, failures] = await Promise.all([
        use('password-backoff', wait, (l) => l.get(`${key}:${address}`)),
        use('password-account', account, (l) => l.get(key)),
        use('password-backoff', streak, (l) => l.get(`${key}:${address}`)),
      ]);
      if (waiting && waiting.consumedPoints > 1) {
        throw refuse(
          'password-backoff',
          settings.freeFailures,
          settings.maxSeconds,
          waiting,
          'Too many wrong passwords for this account from your address.',
        );
      }
      if (tried && tried.consumedPoints >= settings.account.points) {
        throw refuse(
          'password-account',
          settings.account.points,
          settings.account.seconds,
          tried,
          'Too many wrong passwords for this account.',
        );
      }
      return { failures: Boolean(waiting || (failures && failures.consumedPoints > 0)) };
    },
    async failed(email, address) {
      const key = accountKey(email);
      const [res] = await Promise.all([
        use('password-backoff', streak, (l) => l.penalty(`${key}:${address}`, 1)),
        use('password-account', account, (l) => l.penalty(key, 1)),
      ]);
      const seconds = backoffSeconds(res.consumedPoints, settings);
      if (seconds > 0) await use('password-backoff', wait, (l) => l.block(`${key}:${address}`, seconds));
    },
    async succeeded(email, address) {
      const key = `${accountKey(email)}:${address}`;
      await Promise.all([use('password-backoff', streak, (l) => l.delete(key)), use('password-backoff', wait, (l) => l.delete(key))]);
    },
  };
}
