import type { IncomingMessage } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { hasBody, isOperationsRequest, labelRoute, requestIdOf } from '@restgate/shared/http';
import { rateLimited } from '@restgate/shared/limits';
import { isBadCredential, type Authenticator } from './authenticate';
import { credentialsInSight, decide, tokensGiven, type Admission } from './decide';
import type { PolicyLookup } from './policy';
import type { Proxy } from './proxy';
import { assertAllowed, setRateLimitHeaders, type GatewayLimits } from './rate-limit';
import type { BodyReader } from './request-body';
import { rewriteForUpstream } from './rewrite';

/** What the request path works with, all decided once when the gateway is built (app.ts). */
export interface RequestPathDeps {
  policy: PolicyLookup;
  /** The per-address ceilings; undefined without the rate-limit store. */
  limits: GatewayLimits | undefined;
  /** The client's address: a trusted proxy's X-Forwarded-For, or the socket's. */
  clientAddress: (req: IncomingMessage) => string;
  isMasterKey: (token: string) => boolean;
  authenticate: Authenticator;
  mfaRequiredRoles: readonly string[];
  bodyOf: BodyReader;
  proxies: Record<string, Proxy>;
  principalSecret: string;
}

/**
 * A request's path through the gateway, in the order it runs. Before it, every request has had
 * its prelude (request id, access line, HTTP series, security headers: `gatewayFastify`) and, with
 * CORS on, its CORS headers (a preflight is answered there).
 *
 *  1. The target: method, path and query, the URL parsed once; the policy row for it.
 *  2. Off the table (the docs, a 404 or 405 to come): counted against the ceiling on all routes,
 *     then left to fastify's routes. The operations paths are neither counted nor looked up.
 *  3. Arrival, before any body: the client's address, the credentials in sight (query, Bearer),
 *     the ceiling on all routes (429; over it, a request whose body may still hold the master key
 *     goes on, to be counted against the key's).
 *  4. The body (415/413/400), then the principal and the row's access (decide: 400/401/403; a bad
 *     credential counted per address, 429 past its ceiling).
 *  5. The row's own ceiling (429).
 *  6. The request rewritten for its service (the signed principal and client address) and
 *     proxied; the service's answer streams back (502/504 when it fails).
 * Anything thrown is answered as problem+json by the gateway's error handler.
 *
 * Returns the reply once it is answered; undefined when fastify's own routes answer (step 2).
 */
export function createRequestPath(deps: RequestPathDeps) {
  const { policy, limits } = deps;

  return async function requestPath(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
    const req = request.raw;
    if (isOperationsRequest(req)) return undefined;
    // 1. The target.
    const method = req.method ?? 'GET';
    const { path, query } = splitUrl(req.url ?? '/');
    const row = policy.find(method, path);
    // 2. Off the table.
    if (!row) {
      if (limits) {
        const arrival = await limits.arrive(deps.clientAddress(req), false);
        if (!arrival.decision.allowed) throw rateLimited(arrival.decision);
        setRateLimitHeaders(reply.raw, [arrival.decision]);
      }
      return undefined;
    }
    labelRoute(req, row.path); // the HTTP series count by policy row, never by raw URL
    // 3. Arrival.
    const address = deps.clientAddress(req);
    const seen = row.level === 'provider' ? undefined : credentialsInSight(query, req.headers.authorization);
    const given = seen ? tokensGiven(seen) : [];
    const arrival = limits ? await limits.arrive(address, given.length === 1 && deps.isMasterKey(given[0]!)) : undefined;
    if (arrival && !(seen && given.length === 0 && hasBody(req))) assertAllowed(arrival.decision);
    // 4. Body, principal, access.
    let admission: Admission;
    try {
      const body = await deps.bodyOf(req);
      admission = decide(row, { headers: req.headers, query, body, seen }, deps.authenticate, deps.mfaRequiredRoles);
    } catch (err) {
      if (arrival) assertAllowed(arrival.decision);
      throw (isBadCredential(err) && (await limits?.badCredential(address))) || err;
    }
    // 5. The row's own ceiling.
    if (limits && arrival) await limits.admitted(arrival, reply.raw, row, admission.principal);
    // 6. To the service and back.
    const upstream = rewriteForUpstream(method, path, req.headers, admission, {
      secret: deps.principalSecret,
      requestId: requestIdOf(req),
      clientAddress: address,
    });
    const proxy = deps.proxies[row.upstream];
    if (!proxy) throw new Error(`no proxy for upstream ${row.upstream}`);
    return proxy(upstream, reply);
  };
}

/** The path and the query of a request target (the query without its `?`). */
export function splitUrl(url: string): { path: string; query: string } {
  const q = url.indexOf('?');
  return q === -1 ? { path: url, query: '' } : { path: url.slice(0, q), query: url.slice(q + 1) };
}
