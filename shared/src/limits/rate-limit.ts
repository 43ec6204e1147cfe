import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { problem, sharedErrorCatalogue, type AppError } from '../errors';
import type { Counter, Metrics } from '../metrics';

/**
 * What a limit does while its store (Redis) does not answer:
 * - `memory`: counts in this process instead (the limit holds per replica, not across them);
 * - `open`: lets the request through;
 * - `closed`: refuses it (the caller decides what refusing means: a 429, or no mail).
 * Each fallback is logged (once per outage and limit) and counted.
 */
export type StoreFallback = 'memory' | 'open' | 'closed';

/** `points` per `seconds`, e.g. "20/60": the form every limit takes in the configuration. */
export interface Quota {
  points: number;
  seconds: number;
}

/** The Joi pattern of a quota ("points/seconds"). */
export const QUOTA_PATTERN = /^[1-9]\d*\/[1-9]\d*$/;

export function parseQuota(text: string): Quota {
  const [points, seconds] = text.split('/').map(Number);
  if (!points || !seconds) throw new Error(`not a quota (points/seconds): ${text}`);
  return { points, seconds };
}

export interface LimitRule extends Quota {
  /** Name in the metrics, the `RateLimit-Policy` header and the Redis keys. */
  name: string;
  onStoreError: StoreFallback;
}

/** The outcome of one consume: enough for the headers and the 429. */
export interface LimitDecision {
  name: string;
  allowed: boolean;
  limit: number;
  remaining: number;
  windowSeconds: number;
  /** Seconds until the window resets (at least 1). */
  resetSeconds: number;
  /** True when the store did not answer and the fallback decided. */
  degraded?: boolean;
}

export interface Limiter {
  readonly rule: LimitRule;
  /** Counts `points` for `key` and says whether the request may go on. */
  consume(key: string, points?: number): Promise<LimitDecision>;
}

export interface RateLimits {
  limiter(rule: LimitRule): Limiter;
  /** Counts a refused request under its limit's name (`rate_limited_total`). */
  recordLimited(name: string): void;
  /** The Redis client, for limits that are not a plain quota (the password back-off). */
  readonly store: Redis;
  readonly logger: Logger;
  /** Prefix of every key these limits write. */
  readonly keyPrefix: string;
  /** Runs `work` against the store, with `fallback` (logged and counted) when the store fails. */
  guarded<T>(name: string, work: () => Promise<T>, fallback: () => Promise<T> | T): Promise<T>;
}

const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

/**
 * Rate limits on a Redis store shared by every replica (rate-limiter-flexible's atomic counters),
 * with the metrics `rate_limited_total{limit}` and `rate_limit_store_errors_total{limit,fallback}`.
 */
export function createRateLimits(options: { redis: Redis; logger: Logger; metrics?: Metrics; keyPrefix: string }): RateLimits {
  const { redis, logger } = options;
  const limited = options.metrics?.counter({
    name: 'rate_limited_total',
    help: 'Requests refused by a rate limit or back-off, by limit name.',
    labelNames: ['limit'],
  }) as Counter<'limit'> | undefined;
  const storeErrors = options.metrics?.counter({
    name: 'rate_limit_store_errors_total',
    help: 'Limit decisions made without the store (Redis) by the limit fallback, by limit name and fallback.',
    labelNames: ['limit', 'fallback'],
  }) as Counter<'limit' | 'fallback'> | undefined;
  const failing = new Set<string>();

  async function guarded<T>(name: string, work: () => Promise<T>, fallback: () => Promise<T> | T, how = 'memory'): Promise<T> {
    try {
      const result = await work();
      if (failing.delete(name)) logger.info({ limit: name }, `rate limit ${name}: store answers again`);
      return result;
    } catch (err) {
      if (err instanceof RateLimiterRes) throw err;
      storeErrors?.inc({ limit: name, fallback: how });
      if (!failing.has(name)) {
        failing.add(name);
        logger.warn(
          { limit: name, fallback: how, err: { message: (err as Error).message } },
          `rate limit ${name}: store unavailable, falling back (${how})`,
        );
      }
      return fallback();
    }
  }

  return {
    store: redis,
    logger,
    keyPrefix: options.keyPrefix,
    guarded: (name, work, fallback) => guarded(name, work, fallback),
    recordLimited: (name) => limited?.inc({ limit: name }),
    limiter(rule) {
      const shape = { points: rule.points, duration: rule.seconds, keyPrefix: `${options.keyPrefix}:${rule.name}` };
      // A key over its limit is also blocked in this process until its window ends, so a flood
      // is refused without a Redis round trip per request (the count stays shared for the rest).
      const store = new RateLimiterRedis({
        ...shape,
        storeClient: redis,
        rejectIfRedisNotReady: true,
        inMemoryBlockOnConsumed: rule.points + 1,
      });
      const memory = new RateLimiterMemory(shape);
      const decide = (res: RateLimiterRes, allowed: boolean, degraded = false): LimitDecision => ({
        name: rule.name,
        allowed,
        limit: rule.points,
        remaining: Math.max(0, res.remainingPoints),
        windowSeconds: rule.seconds,
        resetSeconds: seconds(res.msBeforeNext),
        ...(degraded ? { degraded } : {}),
      });
      const run = async (limiter: RateLimiterRedis | RateLimiterMemory, key: string, points: number, degraded = false) => {
        try {
          return decide(await limiter.consume(key, points), true, degraded);
        } catch (res) {
          if (res instanceof RateLimiterRes) return decide(res, false, degraded);
          throw res;
        }
      };
      const fallbackDecision = (allowed: boolean): LimitDecision => ({
        name: rule.name,
        allowed,
        limit: rule.points,
        remaining: allowed ? rule.points : 0,
        windowSeconds: rule.seconds,
        resetSeconds: allowed ? rule.seconds : 1,
        degraded: true,
      });
      return {
        rule,
        async consume(key, points = 1) {
          const decision = await guarded(
            rule.name,
            () => run(store, key, points),
            () => {
              if (rule.onStoreError === 'memory') return run(memory, key, points, true);
              return fallbackDecision(rule.onStoreError === 'open');
            },
            rule.onStoreError,
          );
          if (!decision.allowed) limited?.inc({ limit: rule.name });
          return decision;
        },
      };
    },
  };
}

/** How `countLocally` shares its counts. */
export interface LocalCounting {
  /** How often this process adds its counts to the store, in ms. */
  syncMs: number;
  /** A key this close to its ceiling (as the store last said) is counted in the store on every request. */
  exactWithin: number;
}

interface LocalCount {
  /** The store's count at the last answer, this process's counts before it included. */
  stored: number;
  /** Sent to the store, not answered yet. */
  sending: number;
  /** Counted here since, not sent yet. */
  pending: number;
  /** When the store's window ends, as the store last said (ms since the epoch). */
  resetAt: number;
  /** Until when `stored` is recent enough to decide here (ms since the epoch). */
  freshUntil: number;
}

/**
 * `limiter` with most of its counting done in this process, for a generous ceiling that almost
 * every client stays far below (the gateway's limit on all routes): a round trip to the store on
 * every request would put a Redis command (ioredis, the limiter, the write) on every proxied
 * request's CPU path, for counts far from any ceiling. A key's first request in a window, and
 * every request once the key is within `exactWithin` of the ceiling, is counted in the store as
 * `limiter` counts it, together with what was counted here meanwhile; the others are
 * counted here and added to the store every `syncMs`, each answer bringing back the count of every
 * process. A count not refreshed for two syncs (a client that paused) is read again first. For one
 * process the decisions are exact; with several, a key can go over its ceiling by what the others
 * counted in the last two syncs. What is counted here and not yet synced when the process stops
 * is lost.
 */
export function countLocally(limiter: Limiter, options: LocalCounting): Limiter & { stop(): void } {
  const { rule } = limiter;
  const counts = new Map<string, LocalCount>();
  /** Adds `points` to the store's count of `key`; the answer replaces what is known of it. */
  const send = async (key: string, count: LocalCount, points: number): Promise<LimitDecision> => {
    count.sending += points;
    try {
      const decision = await limiter.consume(key, points);
      const now = Date.now();
      count.stored = decision.limit - decision.remaining;
      count.resetAt = now + decision.resetSeconds * 1000;
      count.freshUntil = now + 2 * options.syncMs;
      return decision;
    } finally {
      count.sending -= points;
    }
  };
  const sync = () => {
    const now = Date.now();
    for (const [key, count] of counts) {
      if (count.pending > 0) {
        const points = count.pending;
        count.pending = 0;
        // The limiter falls back on its own when the store fails; a refusal here refuses nobody.
        send(key, count, points).catch(() => undefined);
      } else if (count.sending === 0 && now >= count.resetAt) {
        counts.delete(key);
      }
    }
  };
  const timer = setInterval(sync, options.syncMs);
  timer.unref();
  return {
    rule,
    stop: () => clearInterval(timer),
    async consume(key, points = 1) {
      const now = Date.now();
      let count = counts.get(key);
      const counted = count ? count.stored + count.sending + count.pending : 0;
      if (count && now < count.freshUntil && now < count.resetAt && counted + points <= rule.points - options.exactWithin) {
        count.pending += points;
        return {
          name: rule.name,
          allowed: true,
          limit: rule.points,
          remaining: rule.points - counted - points,
          windowSeconds: rule.seconds,
          resetSeconds: Math.max(1, Math.ceil((count.resetAt - now) / 1000)),
        };
      }
      if (!count) counts.set(key, (count = { stored: 0, sending: 0, pending: 0, resetAt: 0, freshUntil: 0 }));
      const carried = count.pending;
      count.pending = 0;
      return send(key, count, points + carried);
    },
  };
}

/**
 * The IETF httpapi draft headers for the limits a request went through: every policy in
 * `RateLimit-Policy`, and in `RateLimit` the one closest to its end (the one that will bite first).
 */
export function rateLimitHeaders(decisions: LimitDecision[]): Record<string, string> {
  if (decisions.length === 0) return {};
  const tightest = decisions.reduce((a, b) =>
    b.remaining < a.remaining || (b.remaining === a.remaining && b.resetSeconds > a.resetSeconds) ? b : a,
  );
  return {
    'RateLimit-Policy': decisions.map((d) => `"${d.name}";q=${d.limit};w=${d.windowSeconds}`).join(', '),
    RateLimit: `"${tightest.name}";r=${tightest.remaining};t=${tightest.resetSeconds}`,
  };
}

/** The 429 problem for a refused decision: `Retry-After` and the draft headers. */
export function rateLimited(decision: LimitDecision, all: LimitDecision[] = [decision], detail?: string): AppError {
  return problem(sharedErrorCatalogue.rate_limited, {
    detail: detail ?? `Too many requests (limit "${decision.name}"). Try again in ${decision.resetSeconds} s.`,
    extras: { limit: decision.name },
    headers: {
      ...rateLimitHeaders(all),
      RateLimit: `"${decision.name}";r=0;t=${decision.resetSeconds}`,
      'Retry-After': String(decision.resetSeconds),
    },
  });
}
