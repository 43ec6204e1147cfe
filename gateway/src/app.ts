import type { IncomingMessage } from 'node:http';
import type { Express } from 'express';
import proxyaddr from 'proxy-addr';
import { createHttpApp, createRateLimits, type Logger, type Metrics, type RedisHandle, type RevocationList } from '@restgate/shared';
import { createAuthenticator, masterKeyCheck } from './authenticate';
import type { GatewayConfig } from './config';
import { corsFor } from './cors';
import { createDocsRouter } from './docs';
import { createGate } from './gate';
import { parseMfaRequiredRoles } from './mfa-policy';
import { createPolicyMatcher, effectivePolicy, unknownOverrides, type PolicyRow } from './policy';
import { createGatewayLimits } from './rate-limit';
import { createUpstreamProxies, upstreamReadiness, type UpstreamAgents, type UpstreamUrls } from './proxy';

export interface GatewayDeps {
  config: GatewayConfig;
  logger: Logger;
  /** The policy table at the services' default levels (policyRowsFrom their route specs). */
  routes: readonly PolicyRow[];
  /** The base URL of every upstream the rows name (upstreamUrls). */
  upstreams: UpstreamUrls;
  /** Keep-alive pools per upstream (createAgents); the caller destroys them on stop. */
  agents: UpstreamAgents;
  /** The rate-limit store; without it the gateway applies no per-address ceilings. */
  redis?: RedisHandle;
  /** Ended sessions (createRevocationList on `redis`); without it, tokens of ended sessions are not refused. */
  revocations?: RevocationList;
  metrics?: Metrics;
}

/**
 * The gateway: shared bootstrap (request id, logs, security headers, /health, /ready, 404,
 * problem+json) with body parsing off — the gate reads bodies itself to find `access_token`
 * and re-sends them. The policy table's routes go through the gate's lane, outside Express;
 * Express serves the docs and the operations paths, and the gate's 404/405 for the rest.
 */
export function createApp({ config, logger, routes, upstreams, agents, redis, revocations, metrics }: GatewayDeps): Express {
  const unrouted = [...new Set(routes.map((row) => row.upstream))].filter((name) => !upstreams[name]);
  if (unrouted.length > 0) throw new Error(`routes name upstreams without a URL: ${unrouted.join(', ')}`);
  const table = effectivePolicy(config.ROUTE_POLICY, routes);
  for (const key of unknownOverrides(config.ROUTE_POLICY, routes)) {
    logger.warn({ route: key }, `ROUTE_POLICY names a route the gateway does not know: ${key}`);
  }
  const cors = corsFor(config.CORS_ORIGINS);
  const trust = trustedProxies(config.TRUSTED_PROXIES);
  const gate = createGate({
    matchRoute: createPolicyMatcher(table),
    authenticate: createAuthenticator({
      masterKey: config.MASTER_KEY,
      jwtSecret: config.JWT_SECRET,
      issuer: config.JWT_ISSUER,
      audience: config.JWT_AUDIENCE,
      maxLifetimeSeconds: config.JWT_TTL_SECONDS,
      revocations,
    }),
    principalSecret: config.PRINCIPAL_SECRET,
    bodyLimit: config.BODY_LIMIT,
    proxies: createUpstreamProxies(config, upstreams, agents),
    isMasterKey: masterKeyCheck(config.MASTER_KEY),
    limits: redis ? createGatewayLimits(createRateLimits({ redis: redis.client, logger, metrics, keyPrefix: `${config.REDIS_KEY_PREFIX}:gateway` }), config) : undefined,
    clientAddress: (req: IncomingMessage) => proxyaddr(req, trust),
    cors,
    mfaRequiredRoles: parseMfaRequiredRoles(config.MFA_REQUIRED_ROLES),
  });
  return createHttpApp({
    logger,
    readiness: [
      ...upstreamReadiness(upstreams),
      ...(redis ? [redis.readiness] : []),
      // Not ready until the ended sessions are known: until then user tokens get 503 here.
      ...(revocations ? [{ name: 'revocations', check: async () => assertLoaded(revocations) }] : []),
    ],
    metrics,
    parseBodies: false,
    // The only public port: its metrics only for the scraper holding the token, a 404 for anyone else.
    metricsAccess: config.METRICS_TOKEN ? { bearer: config.METRICS_TOKEN } : 'closed',
    // The services' own secret path parameters (a reset token in the path), hidden here as there.
    secretRoutes: table.flatMap((row) => (row.spec ? [row.spec] : [])),
    lane: gate.lane,
    configure: (app) => {
      // req.ip, req.protocol: what a trusted proxy says, as the gate reads it.
      app.set('trust proxy', trust);
      app.use(gate.count);
      if (cors) app.use(cors);
      // Docs first: every path the policy table doesn't route is a 404 at the gate.
      app.use(
        createDocsRouter({
          upstreams,
          policy: table,
          logger,
          timeoutMs: Math.min(config.UPSTREAM_TIMEOUT_MS, 5_000),
        }),
      );
      app.use(gate.refuse);
    },
  });
}

/** TRUSTED_PROXIES compiled as Express would compile it for `trust proxy`: none when empty. */
function trustedProxies(spec: string): (address: string, hop: number) => boolean {
  const list = spec
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  return list.length > 0 ? proxyaddr.compile(list) : () => false;
}

function assertLoaded(revocations: RevocationList): void {
  if (!revocations.loaded()) throw new Error('the list of ended sessions has not been read yet');
}
