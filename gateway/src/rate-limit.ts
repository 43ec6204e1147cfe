import type { ServerResponse } from 'node:http';
import {
  countLocally,
  parseQuota,
  rateLimited,
  rateLimitHeaders,
  routeKey,
  type LimitDecision,
  type Limiter,
  type Principal,
  type RateLimits,
} from '@restgate/shared';
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

const QUOTA_KEYS: Record<RouteLimitName | 'all', keyof GatewayConfig> = {
  all: 'RATE_LIMIT_ALL',
  credentials: 'RATE_LIMIT_CREDENTIALS',
  'sign-up': 'RATE_LIMIT_SIGN_UP',
  refresh: 'RATE_LIMIT_REFRESH',
  social: 'RATE_LIMIT_SOCIAL',
  'password-resets': 'RATE_LIMIT_PASSWORD_RESETS',
  'email-verifications': 'RATE_LIMIT_EMAIL_VERIFICATIONS',
};

/** How often each gateway adds its counts of the ceiling on all routes to Redis. */
const ALL_ROUTES_SYNC_MS = 200;

export type LimitCheck = (address: string, res: ServerResponse, route: { method: string; path: string }, principal: Principal) => Promise<void>;

/**
 * The gateway's per-address ceilings, counted in Redis so they hold across gateway replicas (the
 * one on all routes mostly in each replica, shared every ALL_ROUTES_SYNC_MS: see countLocally).
 * The master key is a trusted client: its ceilings are `RATE_LIMIT_MASTER_FACTOR` times higher
 * (counted apart from the same address's other requests). While Redis is away each replica counts
 * in its own memory (logged, and counted in `rate_limit_store_errors_total`).
 */
export function createLimitCheck(limits: RateLimits, config: GatewayConfig): LimitCheck {
  const make = (name: RouteLimitName | 'all', factor: number, suffix: string): Limiter => {
    const quota = parseQuota(String(config[QUOTA_KEYS[name]]));
    const limiter = limits.limiter({ name: `${name}${suffix}`, points: quota.points * factor, seconds: quota.seconds, onStoreError: 'memory' });
    // Every request passes the ceiling on all routes, and almost none come near it: counted here,
    // shared every ALL_ROUTES_SYNC_MS, and in Redis on every request in its last tenth.
    // The others guard credentials and mail: exact across replicas, a Redis count each.
    if (name !== 'all') return limiter;
    const counted = countLocally(limiter, { syncMs: ALL_ROUTES_SYNC_MS, exactWithin: Math.floor(limiter.rule.points / 10) });
    limits.store.once('end', counted.stop);
    return counted;
  };
  const names = Object.keys(QUOTA_KEYS) as (RouteLimitName | 'all')[];
  const plain = new Map(names.map((n) => [n, make(n, 1, '')]));
  const trusted = new Map(names.map((n) => [n, make(n, config.RATE_LIMIT_MASTER_FACTOR, '-master')]));

  return async (address, res, route, principal) => {
    const set = principal.kind === 'master' ? trusted : plain;
    const own = ROUTE_LIMITS[routeKey(route.method, route.path)];
    // Both counts at once: with the client's auto-pipelining they travel in one write and come
    // back in one read, one round trip to Redis instead of two.
    const decisions: LimitDecision[] = await Promise.all([set.get('all')!.consume(address), ...(own ? [set.get(own)!.consume(address)] : [])]);
    const refused = decisions.find((d) => !d.allowed);
    if (refused) throw rateLimited(refused, decisions);
    // Services read the headers back from the response only through the proxy: set them now.
    for (const [name, value] of Object.entries(rateLimitHeaders(decisions))) res.setHeader(name, value);
  };
}
