import type { Express } from 'express';
import type { Logger, Metrics, ReadinessCheck } from '@restgate/shared';
import { createHttpApp } from '@restgate/shared/http';

export interface AppDeps {
  logger: Logger;
  /** What `/ready` checks: the broker, the delivery log and the mail transport. */
  readiness: ReadinessCheck[];
  /** The service's series (mail counters), served at `/metrics` with the HTTP ones. */
  metrics?: Metrics;
}

/** The mailer's HTTP side: `/health`, `/ready` and `/metrics` only (it has no API); connects nothing and listens nowhere. */
export function createApp(deps: AppDeps): Express {
  return createHttpApp({ name: 'mailer', logger: deps.logger, readiness: deps.readiness, metrics: deps.metrics, parseBodies: false });
}
