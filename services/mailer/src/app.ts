import type { Express } from 'express';
import { createHttpApp, type Logger, type ReadinessCheck } from '@restgate/shared';

export interface AppDeps {
  logger: Logger;
  /** What `/ready` checks: the broker, the delivery log and the mail transport. */
  readiness: ReadinessCheck[];
}

/** The mailer's HTTP side: `/health` and `/ready` only (it has no API); connects nothing and listens nowhere. */
export function createApp(deps: AppDeps): Express {
  return createHttpApp({ logger: deps.logger, readiness: deps.readiness, parseBodies: false });
}
