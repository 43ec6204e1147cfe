import type { ServerResponse } from 'node:http';
import type { AppError, Principal } from '@restgate/shared';
import { routeKey } from '@restgate/shared/http';
import {
  addressKey,
  countLocally,
  parseQuota,
  rateLimited,
  rateLimitHeaders,
  type LimitDecision,
  type Limiter,
  type RateLimits,
} from '@restgate/shared/limits';
import type { GatewayConfig } from './config';

/** Per-address ceilings on top of the one on all routes; each is a `RATE_LIMIT_<NAME>` key. */
export type RouteLimitName = 'credentials' | 'sign-up' | 'refresh' | 'social' | 'password-resets' | 'email-verifications';

/**
 * Which routes (method + path pattern, as the policy table names them) count against which
 * ceiling. A route missing here has only the ceiling on all routes. To limit a new route, add its
 * row here (and a `RATE_LIMIT_*` key when it needs a ceiling of its own).
 */
export const ROUTE_LIMITS: Readonly<Record<string, RouteLimitName>> = {
  'POST /auth': 'credentials',
  'POST /auth/mfa': 'credentials',
  'DELETE /users/me/mfa': 'credentials',
  'PUT /users/me/password': 'credentials',
  'PUT /users/:id/password': 'credentials',
  'POST /users': 'sign-up',
  'POST /auth/refresh': 'refresh',
  'POST /auth/facebook': 'social',
  'POST /auth/github': 'social',
  'POST /auth/google': 'social',
  'POST /password-resets': 'password-resets',
  'POST /email-verifications': 'email-verifications',
};

const QUOTA_KEYS: Record<RouteLimitName | 'all' | 'bad-credentials', keyof GatewayConfig> = {
  all: 'RATE_LIMIT_ALL',
  'bad-credentials': 'RATE_LIMIT_BAD_CREDENTIALS',
  credentials: 'RATE_LIMIT_CREDENTIALS',
  'sign-up': 'RATE_LIMIT_SIGN_UP',
  refresh: 'RATE_LIMIT_REFRESH',
  social: 'RATE_LIMIT_SOCIAL',
  'password-resets': 'RATE_LIMIT_PASSWORD_RESETS',
  'email-verifications': 'RATE_LIMIT_EMAIL_VERIFICATIONS',
};

/** How often each gateway adds its counts of the ceiling on all routes to Redis. */
const ALL_ROUTES_SYNC_MS = 200;

/** A request counted against the ceiling on all routes as it arrived. */
export interface Arrival {
  address: string;
  /** Counted against the master key's ceiling: the master key was in the query or a Bearer header. */
  trusted: boolean;
  decision: LimitDecision;
}

export interface GatewayLimits {
  /**
   * Counts the request against its address's ceiling on all routes as it arrives, before its body
   * is read or its credential checked: refused requests (a bad credential, a malformed body) count
   * like any other. `trusted` when the master key is already in sight (query, Bearer header).
   */
  arrive(address: string, trusted: boolean): Promise<Arrival>;
  /**
   * Once the principal is known: the route's own ceiling, and the master key's ceiling on all
   * routes when the key was found only in the body. Throws the 429; sets the draft headers.
   * Synchronous (no promise) when there is nothing left to count, the common case.
   */
  admitted(arrival: Arrival, res: ServerResponse, route: { method: string; path: string }, principal: Principal): Promise<void> | void;
  /**
   * A credential that failed verification: counted in the address's own bucket for them, which
   * valid credentials never touch. Resolves to the 429 to answer instead of the 401 once the
   * bucket is full, or undefined.
   */
  badCredential(address: string): Promise<AppError | undefined>;
}

/**
 * The gateway's per-address ceilings, counted in Redis so they hold across gateway replicas (the
 * one on all routes mostly in each replica, shared every ALL_ROUTES_SYNC_MS: see countLocally).
 * The master key is a trusted client: its ceilings are `RATE_LIMIT_MASTER_FACTOR` times higher
 * (counted apart from the same address's other requests). While Redis is away each replica counts
 * in its own memory (logged, and counted in `rate_limit_store_errors_total`).
 */
export function createGatewayLimits(limits: RateLimits, config: GatewayConfig): GatewayLimits {
  const make = (name: keyof typeof QUOTA_KEYS, factor: number, suffix: string): Limiter => {
    const quota = parseQuota(String(config[QUOTA_KEYS[name]]));
    const limiter = limits.limiter({
      name: `${name}${suffix}`,
      points: quota.points * factor,
      seconds: quota.seconds,
      onStoreError: 'memory',
    });
    // Every request passes the ceiling on all routes, and almost none come near it: counted here,
    // shared every ALL_ROUTES_SYNC_MS, and in Redis on every request in its last tenth.
    // The others guard credentials and mail: exact across replicas, a Redis count each.
    if (name !== 'all') return limiter;
    const counted = countLocally(limiter, { syncMs: ALL_ROUTES_SYNC_MS, exactWithin: Math.floor(limiter.rule.points / 10) });
    limits.store.once('end', counted.stop);
    return counted;
  };
  const names = (Object.keys(QUOTA_KEYS) as (keyof typeof QUOTA_KEYS)[]).filter((n) => n !== 'bad-credentials');
  const plain = new Map(names.map((n) => [n, make(n, 1, '')]));
  const trusted = new Map(names.map((n) => [n, make(n, config.RATE_LIMIT_MASTER_FACTOR, '-master')]));
  // A bad credential is nobody's, the master key's least of all: one bucket, never raised.
  const bad = make('bad-credentials', 1, '');

  return {
    // Counted per address, an IPv6 client per /64 (addressKey).
    async arrive(address, isTrusted) {
      const key = addressKey(address);
      return { address: key, trusted: isTrusted, decision: await (isTrusted ? trusted : plain).get('all')!.consume(key) };
    },
    admitted(arrival, res, route, principal) {
      const master = principal.kind === 'master';
      const set = master ? trusted : plain;
      const own = ROUTE_LIMITS[routeKey(route.method, route.path)];
      // The master key seen only in the body was counted as anyone's on arrival: its own ceiling decides.
      const recount = master && !arrival.trusted;
      if (!recount) assertAllowed(arrival.decision);
      if (!own && !recount) return setRateLimitHeaders(res, [arrival.decision]);
      // Both counts at once: with the client's auto-pipelining they travel in one write and come
      // back in one read, one round trip to Redis instead of two.
      return Promise.all([
        recount ? set.get('all')!.consume(arrival.address) : arrival.decision,
        ...(own ? [set.get(own)!.consume(arrival.address)] : []),
      ]).then((decisions) => {
        const refused = decisions.find((d) => !d.allowed);
        if (refused) throw rateLimited(refused, decisions);
        setRateLimitHeaders(res, decisions);
      });
    },
    async badCredential(address) {
      const decision = await bad.consume(addressKey(address));
      return decision.allowed
        ? undefined
        : rateLimited(
            decision,
            [decision],
            `Too many requests with a bad credential from this address. Try again in ${decision.resetSeconds} s.`,
          );
    },
  };
}

/** The 429 of a refused count on all routes. */
export function assertAllowed(decision: LimitDecision): void {
  if (!decision.allowed) throw rateLimited(decision);
}

/** The draft headers of the counts a request passed. The proxy sends them on with the service's answer. */
export function setRateLimitHeaders(res: ServerResponse, decisions: LimitDecision[]): void {
  for (const [name, value] of Object.entries(rateLimitHeaders(decisions))) res.setHeader(name, value);
}
