import { match } from 'path-to-regexp';
import { errors, type AppError } from '@restgate/shared';
import {
  applyPolicy,
  parsePolicyOverrides,
  routeKey,
  urlRedactor,
  type AccessLevel,
  type HttpMethod,
  type RouteSpec,
  type ServiceApi,
} from '@restgate/shared/http';

/** One row of the gateway's policy table: which principal a method + path needs, and where it goes. */
export interface PolicyRow {
  method: HttpMethod;
  path: string;
  level: AccessLevel;
  /** The registry name of the service that serves the route. */
  upstream: string;
  /** The service's spec of the route: the docs describe it from here when the running service doesn't. */
  spec?: RouteSpec;
}

/**
 * The policy table, derived from the route specs of each service the gateway routes to (each
 * one's `src/api.ts`): a route's level is written once, in its service, and the gateway and the
 * service apply the same ROUTE_POLICY overrides to it. Paths use Express 5 syntax
 * (path-to-regexp 8), so the gateway and the services match alike.
 * Throws when two services claim the same method + path.
 */
export function policyRowsFrom(apis: Readonly<Record<string, ServiceApi>>): PolicyRow[] {
  const rows: PolicyRow[] = [];
  const owner = new Map<string, string>();
  for (const [upstream, api] of Object.entries(apis)) {
    for (const spec of Object.values(api)) {
      const key = routeKey(spec.method, spec.path);
      const taken = owner.get(key);
      if (taken) throw new Error(`${key} is declared by both ${taken} and ${upstream}`);
      owner.set(key, upstream);
      rows.push({ method: spec.method, path: spec.path, level: spec.level, upstream, spec });
    }
  }
  return rows;
}

/** The table with the operator's overrides (ROUTE_POLICY) applied. Throws on a malformed spec. */
export function effectivePolicy(spec: string, table: readonly PolicyRow[]): PolicyRow[] {
  return applyPolicy([...table], spec);
}

/** Overrides that name no row of the table: almost always a typo worth a warning at start. */
export function unknownOverrides(spec: string, table: readonly PolicyRow[]): string[] {
  const known = new Set(table.map((row) => routeKey(row.method, row.path)));
  return [...parsePolicyOverrides(spec).keys()].filter((key) => !known.has(key));
}

/** The policy table's lookup: the row a request goes by, and, for one without, why not. */
export interface PolicyLookup {
  /** The row for `method` + `path` (HEAD is served as GET), or undefined. */
  find(method: string, path: string): PolicyRow | undefined;
  /** For a request `find` has no row for: the 404 of an unknown path, or the 405 with `Allow` of a known path. */
  refusal(method: string, path: string): AppError;
}

/**
 * Builds the lookup. When several patterns match (`/users/me` and `/users/:id`), the one with
 * fewer parameters wins, for every method: `/users/me` is its own path, with the methods the API
 * docs list for it, so `DELETE /users/me` is a 405 whose `Allow` names those methods, not a
 * DELETE of a user "me".
 */
export function createPolicyLookup(table: readonly PolicyRow[]): PolicyLookup {
  const compiled = table
    .map((row, index) => ({
      row,
      index,
      method: row.method.toUpperCase(),
      // decode: false — the gateway needs no parameter values, and a bad %-escape must not throw.
      test: match(row.path, { decode: false }),
      params: (row.path.match(/[:*]/g) ?? []).length,
      first: literalFirstSegment(row.path),
    }))
    .sort((a, b) => a.params - b.params || a.index - b.index);
  type Compiled = (typeof compiled)[number];

  // The rows of each pattern (all its methods), worked out once.
  const samePattern = new Map<Compiled, Compiled[]>(compiled.map((c) => [c, compiled.filter((other) => other.row.path === c.row.path)]));
  // A pattern whose first segment is literal matches only a path with that first segment (in
  // any ASCII case, as its regular expression): each first segment tests its own patterns and
  // those without a literal one, in the table's order.
  const anywhere = compiled.filter((c) => c.first === undefined);
  const byFirst = new Map<string, Compiled[]>();
  for (const first of new Set(compiled.flatMap((c) => c.first ?? []))) {
    byFirst.set(
      first,
      compiled.filter((c) => c.first === undefined || c.first === first),
    );
  }

  // The 404 names the path the client sent, with any token in it hidden as the access log hides it.
  const shown = urlRedactor(table.flatMap((row) => (row.spec ? [row.spec] : [])));

  /** The rows of the best-matching pattern (all its methods), or none. */
  const candidatesFor = (path: string): readonly Compiled[] => {
    const first = (byFirst.get(firstSegment(path)) ?? anywhere).find((c) => c.test(path) !== false);
    return first ? samePattern.get(first)! : [];
  };

  return {
    find(method, path) {
      const wanted = method === 'HEAD' ? 'GET' : method.toUpperCase();
      return candidatesFor(path).find((c) => c.method === wanted)?.row;
    },
    refusal(method, path) {
      const candidates = candidatesFor(path);
      if (candidates.length === 0) return errors.routeNotFound(method, shown(path));
      const allowed = [...new Set(candidates.map((c) => c.method))];
      return errors.methodNotAllowed(method, allowed.includes('GET') ? [...allowed, 'HEAD'] : allowed);
    },
  };
}

/** The first segment of a request path, lower-cased: what the table's patterns are grouped by. */
function firstSegment(path: string): string {
  const end = path.indexOf('/', 1);
  return (end === -1 ? path.slice(1) : path.slice(1, end)).toLowerCase();
}

/**
 * A pattern's first segment, lower-cased, when it is plain text (no parameter, wildcard, group
 * or escape of path-to-regexp): only a path with that same first segment can match the pattern.
 */
function literalFirstSegment(pattern: string): string | undefined {
  const literal = /^\/([A-Za-z0-9_.~-]+)(?:\/|$)/.exec(pattern);
  return literal ? literal[1]!.toLowerCase() : undefined;
}
