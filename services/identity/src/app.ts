import { createHttpApp, type Logger, type Metrics, type ReadinessCheck, type RouteDef } from '@restgate/shared';
import type { Express } from 'express';
import type { IdentityConfig } from './config';

export interface AppDeps {
  config: Pick<IdentityConfig, 'PRINCIPAL_SECRET' | 'BODY_LIMIT'>;
  logger: Logger;
  /** The route table, with the operator's policy already applied. */
  routes: RouteDef[];
  /** MongoDB. */
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
