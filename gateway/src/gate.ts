import type { IncomingMessage } from 'node:http';
import type { RequestHandler } from 'express';
import {
  ANONYMOUS,
  CLIENT_ADDRESS_HEADER,
  assertAccess,
  hasBody,
  labelRoute,
  parseAuthorization,
  rateLimited,
  requestIdOf,
  rethrowNext,
  signClientAddress,
  signPrincipal,
  singleCredential,
  takesBasic,
  type Authorization,
  type Lane,
  type PresentedToken,
  type Principal,
} from '@restgate/shared';
import { assertCredentialKinds } from './access-hints';
import { isBadCredential, type Authenticator } from './authenticate';
import { assertMfaPolicy } from './mfa-policy';
import { explainPreflight } from './cors';
import { takeAccessTokens } from './credentials';
import { rewriteForwardHeaders } from './forward-headers';
import type { PolicyMatcher, PolicyRow } from './policy';
import { setForwardBody, type Proxy } from './proxy';
import { assertAllowed, setRateLimitHeaders, type GatewayLimits } from './rate-limit';
import { assertSingleBodyToken, readBody, stripBodyTokens, type BodyReader } from './request-body';

export interface GateOptions {
  matchRoute: PolicyMatcher;
  authenticate: Authenticator;
  principalSecret: string;
  bodyLimit: string;
  /** One proxy per upstream, by the name the policy rows use. */
  proxies: Record<string, Proxy>;
  /** The client's address: the socket's, or what a trusted proxy says in `X-Forwarded-For`. */
  clientAddress: (req: IncomingMessage) => string;
  /** Whether a token is the master key (masterKeyCheck): its requests count against its own ceiling from arrival. */
  isMasterKey: (token: string) => boolean;
  /** Per-address ceilings (rate-limit.ts): the one on all routes as a request arrives, the others once the principal is known. */
  limits?: GatewayLimits;
  /** CORS headers for the origins the gateway lets in (its preflights never reach the gate). */
  cors?: RequestHandler;
  /** MFA_REQUIRED_ROLES (mfa-policy.ts); none when absent. */
  mfaRequiredRoles?: readonly string[];
}

export interface Gate {
  /** The policy table's routes: served outside Express (see `Lane` in shared). */
  lane: Lane;
  /** For a request the lane did not claim and nothing else answered: the table's 404 or 405. */
  refuse: RequestHandler;
  /**
   * The ceiling on all routes for the requests Express serves past the operations paths (the
   * docs, preflights, the 404s and 405s): every request counts, not only the routed ones.
   */
  count: RequestHandler;
}

function splitUrl(url: string): { path: string; query: string } {
  const q = url.indexOf('?');
  return q === -1 ? { path: url, query: '' } : { path: url.slice(0, q), query: url.slice(q + 1) };
}

/**
 * The gateway's pipeline for a route of the policy table: policy lookup → the ceiling on all
 * routes (429) → body (415/413/400) → credential → principal (401, counted per address when the
 * credential is bad: 429 past its ceiling) → access (400/401/403) → the route's own ceiling (429)
 * → proxy to the row's upstream, the request rewritten for the service on the way: credential out
 * (query, body, Bearer), signed principal, client address and request id in.
 */
export function createGate(options: GateOptions): Gate {
  const routes = new WeakMap<IncomingMessage, PolicyRow>();
  const bodyOf: BodyReader = readBody(options.bodyLimit);

  const lane: Lane = {
    claims(req) {
      try {
        routes.set(req, options.matchRoute(req.method ?? 'GET', splitUrl(req.url ?? '/').path));
        return true;
      } catch {
        return false; // the docs, the operations paths, or the 404/405 that `refuse` explains
      }
    },
    async serve(req, res) {
      const route = routes.get(req)!;
      labelRoute(req, route.path); // the HTTP series count by policy row, never by raw URL
      options.cors?.(req as never, res as never, rethrowNext);
      // Read before admission rewrites X-Forwarded-For.
      const address = options.clientAddress(req);
      const seen = route.level === 'provider' ? undefined : credentialsInSight(req);
      const given = seen ? tokensGiven(seen) : [];
      // Counted before the body is read or a credential checked, so that what is refused counts too.
      const arrival = options.limits && (await options.limits.arrive(address, given.length === 1 && options.isMasterKey(given[0]!)));
      // Over the ceiling, only the master key may still pass (its own is higher), and only a body can still hold it.
      if (arrival && !(seen && given.length === 0 && hasBody(req))) assertAllowed(arrival.decision);
      let principal: Principal;
      try {
        const body = hasBody(req) ? await bodyOf(req, res) : undefined;
        principal = admit(options, req, route, body, address, seen);
      } catch (err) {
        if (arrival) assertAllowed(arrival.decision);
        throw (isBadCredential(err) && (await options.limits?.badCredential(address))) || err;
      }
      if (arrival) await options.limits!.admitted(arrival, res, route, principal);
      await options.proxies[route.upstream]!(req, res);
    },
  };

  const refuse: RequestHandler = (req, _res, next) => {
    // The raw path, as `claims` reads it (Express's req.path would read an absolute-form URL's).
    let row: PolicyRow;
    try {
      row = options.matchRoute(req.method, splitUrl(req.url).path);
    } catch (err) {
      return next(explainPreflight(req, err));
    }
    // The lane claims every request the table matches: reaching here means it was bypassed.
    // The row's pattern, not the path: the log line must not carry a token from the path.
    next(new Error(`gate: ${req.method} ${row.path} matches the policy table but reached Express`));
  };

  const count: RequestHandler = (req, res, next) => {
    if (!options.limits) return next();
    options.limits.arrive(options.clientAddress(req), false).then((arrival) => {
      if (!arrival.decision.allowed) return next(rateLimited(arrival.decision));
      setRateLimitHeaders(res, [arrival.decision]);
      next();
    }, next);
  };

  return { lane, refuse, count };
}

/** The credentials a request shows before its body is read: `access_token` in the query, a Bearer header. */
interface InSight {
  fromQuery: { tokens: string[]; rest: string };
  authorization: Authorization | undefined;
}

function credentialsInSight(req: IncomingMessage): InSight {
  return { fromQuery: takeAccessTokens(splitUrl(req.url ?? '/').query), authorization: parseAuthorization(req.headers.authorization) };
}

/** The tokens in sight that count as given (an empty `access_token` is none: see singleCredential). */
function tokensGiven({ fromQuery, authorization }: InSight): string[] {
  return [...fromQuery.tokens.filter((token) => token !== ''), ...(authorization?.scheme === 'bearer' ? [authorization.token] : [])];
}

/**
 * Decides who is calling and whether they may, then rewrites the request for the service.
 *
 * A presented credential is verified on every route, public ones included: a client that sends
 * a bad or expired token gets a 401 `invalid_token` instead of silently being served as
 * anonymous, which would hide its bug (and a public GET may answer differently per principal).
 */
function admit(options: GateOptions, req: IncomingMessage, route: PolicyRow, raw: Buffer | undefined, address: string, seen?: InSight): Principal {
  const method = req.method ?? 'GET';
  const { path } = splitUrl(req.url ?? '/');
  let principal: Principal = ANONYMOUS;
  let body = raw;
  let keepAuthorization: boolean;

  if (!seen) {
    // Social login: the credential is the provider's token, for identity to exchange; untouched.
    assertSingleBodyToken(req, raw);
    keepAuthorization = true;
  } else {
    const { fromQuery, authorization } = seen;
    const fromBody = stripBodyTokens(req, raw);
    const presented: PresentedToken[] = [
      ...fromQuery.tokens.map((token) => ({ place: 'query' as const, token })),
      ...fromBody.tokens.map((token) => ({ place: 'body' as const, token })),
      ...(authorization?.scheme === 'bearer' ? [{ place: 'bearer' as const, token: authorization.token }] : []),
    ];
    const credential = singleCredential(presented);
    if (credential) principal = options.authenticate(credential.token);
    assertCredentialKinds(route.level, principal, authorization);
    assertAccess(route.level, principal);
    assertMfaPolicy(options.mfaRequiredRoles ?? [], route.level, principal);

    req.url = fromQuery.rest ? `${path}?${fromQuery.rest}` : path;
    body = fromBody.body;
    // HTTP Basic is the service's own check on basic routes; any other Authorization stops here.
    keepAuthorization = takesBasic(route.level) && authorization?.scheme === 'basic';
  }

  rewriteForwardHeaders(req.headers, {
    principal: signPrincipal(principal, options.principalSecret, method, path),
    requestId: requestIdOf(req),
    keepAuthorization,
    contentLength: body?.length,
    clientAddress: address,
  });
  // The service's own limits (the password back-off) key on the address the gateway saw.
  req.headers[CLIENT_ADDRESS_HEADER] = signClientAddress(address, options.principalSecret, method, path);
  if (body) setForwardBody(req, body);
  return principal;
}
