import type { IncomingHttpHeaders } from 'node:http';
import { ANONYMOUS, type Principal } from '@restgate/shared';
import {
  assertAccess,
  parseAuthorization,
  singleCredential,
  takesBasic,
  type Authorization,
  type PresentedToken,
} from '@restgate/shared/http';
import { assertCredentialKinds } from './access-hints';
import type { Authenticator } from './authenticate';
import { takeAccessTokens } from './credentials';
import { assertMfaPolicy, withMfaPolicy } from './mfa-policy';
import type { PolicyRow } from './policy';
import { assertSingleBodyToken, stripBodyTokens } from './request-body';

/** The credentials a request shows before its body is read: `access_token` in the query, a Bearer header. */
export interface InSight {
  fromQuery: { tokens: string[]; rest: string };
  authorization: Authorization | undefined;
}

export function credentialsInSight(query: string, authorization: string | undefined): InSight {
  return { fromQuery: takeAccessTokens(query), authorization: parseAuthorization(authorization) };
}

/** The tokens in sight that count as given (an empty `access_token` is none: see singleCredential). */
export function tokensGiven({ fromQuery, authorization }: InSight): string[] {
  return [...fromQuery.tokens.filter((token) => token !== ''), ...(authorization?.scheme === 'bearer' ? [authorization.token] : [])];
}

/** What the gateway decided about a request it lets through, and what of it goes on to the service. */
export interface Admission {
  principal: Principal;
  /** The query to forward: `access_token` taken out. */
  query: string;
  /** The body to forward (`access_token` taken out), or undefined when the request had none. */
  body: Buffer | undefined;
  /** Whether `Authorization` goes on to the service (its own HTTP Basic check; a provider's token). */
  keepAuthorization: boolean;
}

/** The request as `decide` reads it. */
export interface Presented {
  /** For the body's media type (form or JSON). */
  headers: IncomingHttpHeaders;
  query: string;
  body: Buffer | undefined;
  /** credentialsInSight, or undefined on a provider route (its credential is the provider's, for identity). */
  seen: InSight | undefined;
}

/**
 * Decides who is calling and whether the policy row lets them: the credential (in one place only:
 * two are a 400), the principal it stands for (401 when it fails verification), then the row's
 * level (400/401/403), then MFA_REQUIRED_ROLES (401 `mfa_required`). Throws the refusal; returns what goes on to the service. Every rule about
 * who may call a route belongs here.
 *
 * A presented credential is verified on every route, public ones included: a client that sends
 * a bad or expired token gets a 401 `invalid_token` instead of silently being served as
 * anonymous, which would hide its bug (and a public GET may answer differently per principal).
 */
export function decide(
  route: PolicyRow,
  presented: Presented,
  authenticate: Authenticator,
  mfaRequiredRoles: readonly string[],
): Admission {
  const { seen, body, query, headers } = presented;
  if (!seen) {
    // Social login: the credential is the provider's token, for identity to exchange; untouched.
    assertSingleBodyToken(headers, body);
    return { principal: ANONYMOUS, query, body, keepAuthorization: true };
  }
  const { fromQuery, authorization } = seen;
  const fromBody = stripBodyTokens(headers, body);
  const presentedTokens: PresentedToken[] = [
    ...fromQuery.tokens.map((token) => ({ place: 'query' as const, token })),
    ...fromBody.tokens.map((token) => ({ place: 'body' as const, token })),
    ...(authorization?.scheme === 'bearer' ? [{ place: 'bearer' as const, token: authorization.token }] : []),
  ];
  const credential = singleCredential(presentedTokens);
  const principal = credential ? authenticate(credential.token) : ANONYMOUS;
  assertCredentialKinds(route.level, principal, authorization);
  assertAccess(route.level, principal);
  assertMfaPolicy(mfaRequiredRoles, route.level, principal);
  return {
    principal: withMfaPolicy(mfaRequiredRoles, principal),
    query: fromQuery.rest,
    body: fromBody.body,
    // HTTP Basic is the service's own check on basic routes; any other Authorization stops here.
    keepAuthorization: takesBasic(route.level) && authorization?.scheme === 'basic',
  };
}
