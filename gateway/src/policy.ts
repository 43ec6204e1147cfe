import { match } from 'path-to-regexp';
import { applyPolicy, errors, parsePolicyOverrides, routeKey, type AccessLevel, type HttpMethod } from '@restgate/shared';
import type { GatewayConfig } from './config';

/**
 * The services behind the gateway and the config key that holds each one's base URL.
 * A generated resource adds one line here, its `<NAME>_URL` key in config.ts, and its rows below.
 */
export const UPSTREAMS = {
  identity: 'IDENTITY_URL',
  articles: 'ARTICLES_URL',
} as const satisfies Record<string, keyof GatewayConfig>;

export type Upstream = keyof typeof UPSTREAMS;

/** One row of the gateway's policy table: which principal a method + path needs, and where it goes. */
export interface PolicyRow {
  method: HttpMethod;
  path: string;
  level: AccessLevel;
  upstream: Upstream;
}

/**
 * Every route of the API at the gateway, with its default level (the API's contract). Operators override
 * levels with ROUTE_POLICY; the services apply the same overrides to their own tables.
 * Paths use Express 5 syntax (path-to-regexp 8), so the gateway and the services match alike.
 */
export const POLICY_TABLE: readonly PolicyRow[] = [
  { method: 'post', path: '/users', level: 'master', upstream: 'identity' },
  { method: 'get', path: '/users', level: 'admin', upstream: 'identity' },
  { method: 'get', path: '/users/me', level: 'user', upstream: 'identity' },
  { method: 'get', path: '/users/:id', level: 'public', upstream: 'identity' },
  // Self or admin, `me` included: identity decides, the gateway only requires a user token.
  { method: 'put', path: '/users/:id', level: 'user', upstream: 'identity' },
  { method: 'patch', path: '/users/:id', level: 'user', upstream: 'identity' },
  { method: 'put', path: '/users/:id/password', level: 'basic', upstream: 'identity' },
  { method: 'delete', path: '/users/:id', level: 'admin', upstream: 'identity' },
  { method: 'post', path: '/auth', level: 'master+basic', upstream: 'identity' },
  { method: 'post', path: '/auth/facebook', level: 'provider', upstream: 'identity' },
  { method: 'post', path: '/auth/github', level: 'provider', upstream: 'identity' },
  { method: 'post', path: '/auth/google', level: 'provider', upstream: 'identity' },
  { method: 'post', path: '/password-resets', level: 'master', upstream: 'identity' },
  { method: 'get', path: '/password-resets/:token', level: 'public', upstream: 'identity' },
  { method: 'put', path: '/password-resets/:token', level: 'public', upstream: 'identity' },
  { method: 'post', path: '/articles', level: 'user', upstream: 'articles' },
  { method: 'get', path: '/articles', level: 'public', upstream: 'articles' },
  { method: 'get', path: '/articles/:id', level: 'public', upstream: 'articles' },
  { method: 'put', path: '/articles/:id', level: 'user', upstream: 'articles' },
  { method: 'patch', path: '/articles/:id', level: 'user', upstream: 'articles' },
  { method: 'delete', path: '/articles/:id', level: 'user', upstream: 'articles' },
];

/** The table with the operator's overrides (ROUTE_POLICY) applied. Throws on a malformed spec. */
export function effectivePolicy(spec: string, table: readonly PolicyRow[] = POLICY_TABLE): PolicyRow[] {
  return applyPolicy([...table], spec);
}

/** Overrides that name no row of the table: almost always a typo worth a warning at start. */
export function unknownOverrides(spec: string, table: readonly PolicyRow[] = POLICY_TABLE): string[] {
  const known = new Set(table.map((row) => routeKey(row.method, row.path)));
  return [...parsePolicyOverrides(spec).keys()].filter((key) => !known.has(key));
}

export type PolicyMatcher = (method: string, path: string) => PolicyRow;

/**
 * Builds the lookup: the row for `method` + `path` (HEAD is served as GET), a 404 problem for
 * a path no row knows, a 405 with `Allow` for a known path and another method. When several
 * patterns match (`/users/me` and `/users/:id`), the one with fewer parameters wins.
 */
export function createPolicyMatcher(table: readonly PolicyRow[]): PolicyMatcher {
  const compiled = table
    .map((row, index) => ({
      row,
      index,
      // decode: false — the gateway needs no parameter values, and a bad %-escape must not throw.
      test: match(row.path, { decode: false }),
      params: (row.path.match(/[:*]/g) ?? []).length,
    }))
    .sort((a, b) => a.params - b.params || a.index - b.index);

  return (method, path) => {
    const candidates = compiled.filter((c) => c.test(path) !== false);
    if (candidates.length === 0) throw errors.routeNotFound(method, path);
    const wanted = (method === 'HEAD' ? 'GET' : method).toUpperCase();
    const hit = candidates.find((c) => c.row.method.toUpperCase() === wanted);
    if (hit) return hit.row;
    const allowed = [...new Set(candidates.map((c) => c.row.method.toUpperCase()))];
    throw errors.methodNotAllowed(method, allowed.includes('GET') ? [...allowed, 'HEAD'] : allowed);
  };
}
