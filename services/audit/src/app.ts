import type { Express } from 'express';
import type { Logger } from '@restgate/shared';
import { applyPolicy, createHttpApp, type RouteDef } from '@restgate/shared/http';
import type { MongoHandle } from '@restgate/shared/data';
import type { AmqpClient } from '@restgate/shared/messaging';
import { eventsExchangeName } from '@restgate/shared/resource';
import type { AuditConfig } from './config';
import { AuditRepository } from './data/audit.repository';
import { auditRoutes } from './http/audit.routes';
import { createIntake } from './intake';
import { scheduleRetention } from './retention';

export type AuditAppConfig = Pick<
  AuditConfig,
  'PRINCIPAL_SECRET' | 'BODY_LIMIT' | 'ROUTE_POLICY' | 'NODE_ENV' | 'TOPOLOGY_PREFIX' | 'AUDIT_RETENTION_DAYS'
>;

export interface AuditDeps {
  config: AuditAppConfig;
  logger: Logger;
  mongo: Pick<MongoHandle, 'db' | 'readiness'>;
  /** The broker the events come from; without one (tests of the HTTP app) nothing new is stored. */
  amqp?: AmqpClient;
}

/** The whole service wired from its dependencies, as start.ts and the tests use it. */
export function createAudit({ config, logger, mongo, amqp }: AuditDeps) {
  const records = new AuditRepository(mongo.db, config.PRINCIPAL_SECRET);
  const intake = amqp
    ? createIntake({
        amqp,
        exchange: eventsExchangeName(config.TOPOLOGY_PREFIX),
        queue: `${config.TOPOLOGY_PREFIX}audit.events`,
        records,
        logger,
      })
    : undefined;
  const retention = scheduleRetention(records, config.AUDIT_RETENTION_DAYS, logger);
  const routes = applyPolicy(auditRoutes({ records }), config.ROUTE_POLICY) as RouteDef[];
  // Not the broker: while it is away, events wait in identity's outbox and in the queue.
  const app: Express = createHttpApp({
    name: 'audit',
    logger,
    routes,
    principalSecret: config.PRINCIPAL_SECRET,
    readiness: [mongo.readiness],
    bodyLimit: config.BODY_LIMIT,
  });
  return {
    app,
    records,
    ensureIndexes: () => records.ensureIndexes(),
    /** Starts consuming the events and the hourly retention. */
    start() {
      retention.start();
      intake?.start();
    },
    async stop() {
      retention.stop();
      await intake?.stop();
    },
  };
}
