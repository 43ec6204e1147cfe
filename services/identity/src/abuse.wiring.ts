import type { Metrics } from '@restgate/shared';
import { parseQuota, type RateLimits } from '@restgate/shared/limits';
import type { AbuseConfig } from './abuse.config';
import { createSignInBackoff } from './accounts/sign-in-backoff.store';
import type { PasswordHasher } from './accounts/password-hasher.port';
import type { LinkMailCap } from './emailed-links/emailed-link';
import type { SignInBackoff } from './accounts/sign-in-backoff';

/** The limits the use cases consult. */
export interface AbuseLimits {
  backoff: SignInBackoff;
  /** Mails per address: one quota (RESET_MAILS_PER_EMAIL), counted apart for each purpose. */
  mailCaps: { passwordReset: LinkMailCap; emailVerification: LinkMailCap };
}

/** Limits that limit nothing: for a service whose tests sign in many times from one address. */
export function noAbuseLimits(): AbuseLimits {
  const allow: LinkMailCap = { allow: async () => true };
  const settled = { succeeded: async () => {}, release: async () => {} };
  return { backoff: { reserve: async () => settled }, mailCaps: { passwordReset: allow, emailVerification: allow } };
}

/**
 * Identity's limits on the shared Redis, and the hash queue's series.
 * While Redis is away: the back-off counts in this process (guessing stays slowed); the reset-mail
 * cap is closed (no mail, the same 202: a reset can be asked again, a mail flood can't be undone).
 */
export function wireAbuseProtection(parts: {
  config: AbuseConfig;
  metrics: Metrics;
  hasher: PasswordHasher;
  /** Identity's limits on the process's Redis connection (closed by the service). */
  limits: RateLimits;
}): AbuseLimits {
  const { config, metrics, hasher, limits } = parts;
  const backoff = createSignInBackoff(limits, {
    freeFailures: config.PASSWORD_BACKOFF_FREE_FAILURES,
    baseSeconds: config.PASSWORD_BACKOFF_BASE_SECONDS,
    maxSeconds: config.PASSWORD_BACKOFF_MAX_SECONDS,
    account: parseQuota(config.PASSWORD_ACCOUNT_FAILURES),
  });
  const mailCap = (name: string): LinkMailCap => {
    const limiter = limits.limiter({ name, ...parseQuota(config.RESET_MAILS_PER_EMAIL), onStoreError: 'closed' });
    return { allow: async (email) => (await limiter.consume(email)).allowed };
  };
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
  return {
    backoff,
    mailCaps: { passwordReset: mailCap('reset-mails'), emailVerification: mailCap('verification-mails') },
  };
}
