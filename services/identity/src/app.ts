import type { Logger, Metrics, ReadinessCheck } from '@restgate/shared';
import { createHttpApp, type RouteDef } from '@restgate/shared/http';
import type { Express } from 'express';
import type { IdentityConfig } from './config';

export interface AppDeps {
  config: Pick<IdentityConfig, 'PRINCIPAL_SECRET' | 'BODY_LIMIT'>;
  logger: Logger;
  /** The route table, with the operator's policy already applied. */
  routes: RouteDef[];
  /**
   * What GET /health/ready checks: MongoDB and Redis (identity.ts wires both), without which no
   * sign-in can be answered. Not RabbitMQ: with the broker away, mail is still taken (the outbox
   * keeps it).
   */
  readiness: ReadinessCheck[];
  /** The service's own series (the outbox backlog), served at `/metrics` with the HTTP ones. */
  metrics?: Metrics;
}

/** The identity HTTP app. Connects to nothing and listens nowhere. */
export function createApp(deps: AppDeps): Express {
  return createHttpApp({
    name: 'identity',
    logger: deps.logger,
    routes: deps.routes,
    principalSecret: deps.config.PRINCIPAL_SECRET,
    readiness: deps.readiness,
    bodyLimit: deps.config.BODY_LIMIT,
    metrics: deps.metrics,
  });
}
