import type { Logger, Metrics } from '@restgate/shared';
import { createRateLimits, createRedis, parseQuota, type RedisHandle } from '@restgate/shared/limits';
import type { AbuseConfig } from './abuse.config';
import { createSignInBackoff } from './data/sign-in-backoff.store';
import type { PasswordHasher } from './domain/password-hasher';
import type { ResetMailCap } from './domain/reset-mail-cap';
import type { SignInBackoff } from './domain/sign-in-backoff';

export interface AbuseProtection {
  redis: RedisHandle;
  backoff: SignInBackoff;
  resetMailCap: ResetMailCap;
  /** Requests for a new verification link: the same quota, counted apart. */
  verificationMailCap: ResetMailCap;
  close(): Promise<void>;
}

/**
 * Identity's limits on the shared Redis, and the hash queue's series.
 * While Redis is away: the back-off counts in this process (guessing stays slowed); the reset-mail
 * cap is closed (no mail, the same 202: a reset can be asked again, a mail flood can't be undone).
 */
export function wireAbuseProtection(parts: {
  config: AbuseConfig;
  logger: Logger;
  metrics?: Metrics;
  hasher?: PasswordHasher;
  /** The process's Redis connection (default: one of its own). */
  redis?: RedisHandle;
}): AbuseProtection {
  const { config, logger, metrics } = parts;
  const redis = parts.redis ?? createRedis(config.REDIS_URL, logger);
  const limits = createRateLimits({ redis: redis.client, logger, metrics, keyPrefix: `${config.REDIS_KEY_PREFIX}:identity` });
  const backoff = createSignInBackoff(limits, {
    freeFailures: config.PASSWORD_BACKOFF_FREE_FAILURES,
    baseSeconds: config.PASSWORD_BACKOFF_BASE_SECONDS,
    maxSeconds: config.PASSWORD_BACKOFF_MAX_SECONDS,
    account: parseQuota(config.PASSWORD_ACCOUNT_FAILURES),
  });
  const mails = limits.limiter({ name: 'reset-mails', ...parseQuota(config.RESET_MAILS_PER_EMAIL), onStoreError: 'closed' });
  const verificationMails = limits.limiter({
    name: 'verification-mails',
    ...parseQuota(config.RESET_MAILS_PER_EMAIL),
    onStoreError: 'closed',
  });
  const hasher = parts.hasher;
  if (metrics && hasher) {
    metrics.gauge({
      name: 'identity_hash_queue_depth',
      help: 'Password hashes and checks waiting for a worker thread.',
      collect() {
        this.set(hasher.stats().queued);
      },
    });
    metrics.gauge({
      name: 'identity_password_hashes_completed',
      help: 'Password hashes and checks computed since the process started.',
      collect() {
        this.set(hasher.stats().completed);
      },
    });
  }
  return {
    redis,
    backoff,
    resetMailCap: { allow: async (email) => (await mails.consume(email)).allowed },
    verificationMailCap: { allow: async (email) => (await verificationMails.consume(email)).allowed },
    // A connection it was given is closed by whoever opened it.
    close: () => (parts.redis ? Promise.resolve() : redis.close()),
  };
}
