import type { NextFunction, Request, RequestHandler, Response } from 'express';
import {
  ANONYMOUS,
  assertAccess,
  labelRoute,
  parseAuthorization,
  requestIdOf,
  signPrincipal,
  singleCredential,
  type PresentedToken,
  type Principal,
} from '@restgate/shared';
import { assertCredentialKinds } from './access-hints';
import type { Authenticator } from './authenticate';
import { explainPreflight } from './cors';
import { takeAccessTokens } from './credentials';
import { rewriteForwardHeaders } from './forward-headers';
import type { PolicyMatcher, PolicyRow } from './policy';
import { limitAndSign, type LimitCheck } from './rate-limit';
import { setForwardBody } from './proxy';
import { assertSingleBodyToken, rawBody, readBody, stripBodyTokens } from './request-body';

export interface GateOptions {
  matchRoute: PolicyMatcher;
  authenticate: Authenticator;
  principalSecret: string;
  bodyLimit: string;
  /** One proxy per upstream, by the name the policy rows use. */
  proxies: Record<string, RequestHandler>;
  /** Per-address ceilings, checked once the principal is known (rate-limit.ts). */
  limit?: LimitCheck;
}

const routes = new WeakMap<Request, PolicyRow>();
const principals = new WeakMap<Request, Principal>();

function routeOf(req: Request): PolicyRow {
  const route = routes.get(req);
  if (!route) throw new Error('gate: no route matched before admission');
  return route;
}

function splitUrl(url: string): { path: string; query: string } {
  const q = url.indexOf('?');
  return q === -1 ? { path: url, query: '' } : { path: url.slice(0, q), query: url.slice(q + 1) };
}

/**
 * Decides who is calling and whether they may, then rewrites the request for the service:
 * credential out (query, body, Bearer), signed principal and request id in.
 *
 * A presented credential is verified on every route, public ones included: a client that sends
 * a bad or expired token gets a 401 `invalid_token` instead of silently being served as
 * anonymous, which would hide its bug (and a public GET may answer differently per principal).
 */
function admit(options: GateOptions) {
  return (req: Request, _res: Response, next: NextFunction) => {
    const route = routeOf(req);
    const { path, query } = splitUrl(req.url);
    let principal: Principal = ANONYMOUS;
    let body = rawBody(req);
    let keepAuthorization: boolean;

    if (route.level === 'provider') {
      // Social login: the credential is the provider's token, for identity to exchange; untouched.
      assertSingleBodyToken(req);
      keepAuthorization = true;
    } else {
      const fromQuery = takeAccessTokens(query);
      const fromBody = stripBodyTokens(req);
      const authorization = parseAuthorization(req.headers.authorization);
      const presented: PresentedToken[] = [
        ...fromQuery.tokens.map((token) => ({ place: 'query' as const, token })),
        ...fromBody.tokens.map((token) => ({ place: 'body' as const, token })),
        ...(authorization?.scheme === 'bearer' ? [{ place: 'bearer' as const, token: authorization.token }] : []),
      ];
      const credential = singleCredential(presented);
      if (credential) principal = options.authenticate(credential.token);
      assertCredentialKinds(route.level, principal, authorization);
      assertAccess(route.level, principal);
      principals.set(req, principal);

      req.url = fromQuery.rest ? `${path}?${fromQuery.rest}` : path;
      body = fromBody.body;
      // HTTP Basic is the service's own check on basic routes; any other Authorization stops here.
      keepAuthorization = (route.level === 'basic' || route.level === 'master+basic') && authorization?.scheme === 'basic';
    }

    if (body) setForwardBody(req, body);
    rewriteForwardHeaders(req.headers, {
      principal: signPrincipal(principal, options.principalSecret, req.method, path),
      requestId: requestIdOf(req),
      keepAuthorization,
      contentLength: body?.length,
      clientAddress: req.ip ?? req.socket.remoteAddress,
    });
    next();
  };
}

/**
 * The gateway's pipeline after health: policy lookup (404/405) → body (415/413/400) →
 * credential → principal → access (400/401/403) → proxy to the row's upstream.
 */
export function createGate(options: GateOptions): RequestHandler[] {
  const matchRoute: RequestHandler = (req, _res, next) => {
    let row: PolicyRow;
    try {
      row = options.matchRoute(req.method, splitUrl(req.url).path);
    } catch (err) {
      throw explainPreflight(req, err);
    }
    routes.set(req, row);
    labelRoute(req, row.path); // the HTTP series count by policy row, never by raw URL
    next();
  };
  // createApp checks that every row's upstream has a proxy.
  const proxy: RequestHandler = (req, res, next) => options.proxies[routeOf(req).upstream]!(req, res, next);
  const limit = options.limit && limitAndSign(options.limit, options.principalSecret, routeOf, (req) => principals.get(req) ?? ANONYMOUS);
  return [matchRoute, ...(limit ? [limit.before] : []), ...readBody(options.bodyLimit), admit(options), ...(limit ? [limit.after] : []), proxy];
}
