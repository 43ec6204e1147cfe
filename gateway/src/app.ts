import type { Express } from 'express';
import { createHttpApp, createRateLimits, type Logger, type Metrics, type RedisHandle } from '@restgate/shared';
import { createAuthenticator } from './authenticate';
import type { GatewayConfig } from './config';
import { corsFor } from './cors';
import { createDocsRouter } from './docs';
import { createGate } from './gate';
import { createPolicyMatcher, effectivePolicy, unknownOverrides } from './policy';
import { createLimitCheck } from './rate-limit';
import { createUpstreamProxies, upstreamReadiness, upstreamUrls, type UpstreamAgents } from './proxy';

export interface GatewayDeps {
  config: GatewayConfig;
  logger: Logger;
  /** Keep-alive pools per upstream (createAgents); the caller destroys them on stop. */
  agents: UpstreamAgents;
  /** The rate-limit store; without it the gateway applies no per-address ceilings. */
  redis?: RedisHandle;
  metrics?: Metrics;
}

/**
 * The gateway: shared bootstrap (request id, logs, security headers, /health, /ready, 404,
 * problem+json) with body parsing off — the gate reads bodies itself to find `access_token`
 * and re-sends them — and the gate + proxy mounted through `configure`.
 */
export function createApp({ config, logger, agents, redis, metrics }: GatewayDeps): Express {
  const table = effectivePolicy(config.ROUTE_POLICY);
  for (const key of unknownOverrides(config.ROUTE_POLICY)) {
    logger.warn({ route: key }, `ROUTE_POLICY names a route the gateway does not know: ${key}`);
  }
  const gate = createGate({
    matchRoute: createPolicyMatcher(table),
    authenticate: createAuthenticator({
      masterKey: config.MASTER_KEY,
      jwtSecret: config.JWT_SECRET,
      issuer: config.JWT_ISSUER,
      audience: config.JWT_AUDIENCE,
    }),
    principalSecret: config.PRINCIPAL_SECRET,
    bodyLimit: config.BODY_LIMIT,
    proxies: createUpstreamProxies(config, agents, logger),
    limit: redis ? createLimitCheck(createRateLimits({ redis: redis.client, logger, metrics, keyPrefix: `${config.REDIS_KEY_PREFIX}:gateway` }), config) : undefined,
  });
  const cors = corsFor(config.CORS_ORIGINS);
  return createHttpApp({
    logger,
    readiness: [...upstreamReadiness(config), ...(redis ? [redis.readiness] : [])],
    metrics,
    parseBodies: false,
    // The only public port: its metrics only for the scraper holding the token, a 404 for anyone else.
    metricsAccess: config.METRICS_TOKEN ? { bearer: config.METRICS_TOKEN } : 'closed',
    configure: (app) => {
      // req.ip: the socket's address, or what a trusted proxy says in X-Forwarded-For.
      app.set('trust proxy', config.TRUSTED_PROXIES || false);
      if (cors) app.use(cors);
      // Docs first: every path the policy table doesn't route is a 404 at the gate.
      app.use(
        createDocsRouter({
          upstreams: upstreamUrls(config),
          policy: table,
          logger,
          timeoutMs: Math.min(config.UPSTREAM_TIMEOUT_MS, 5_000),
        }),
      );
      app.use(gate);
    },
  });
}
