import type { Express } from 'express';
import { createSecretBox, readRegistry, routedServices, type Logger } from '@restgate/shared';
import { applyPolicy, createHttpApp, type RouteDef } from '@restgate/shared/http';
import type { MongoHandle } from '@restgate/shared/data';
import type { AmqpClient } from '@restgate/shared/messaging';
import {
  AUDIT_RESOURCE,
  ChangeOutbox,
  createAuditTrail,
  createChangeRelay,
  eventsExchangeName,
  loadRecordAccess,
  noAuditTrail,
  type RecordAccess,
} from '@restgate/shared/resource';
import type { WebhooksConfig } from './config';
import { DeliveryRepository } from './data/delivery.repository';
import { EndpointRepository } from './data/endpoint.repository';
import { createDispatcher } from './delivery/dispatcher';
import { createEndpointCache } from './delivery/endpoint-cache';
import { createIntake } from './delivery/intake';
import { createSender } from './delivery/sender';
import { signingSecrets } from './domain/endpoints';
import { webhookRoutes } from './http/webhook.routes';

/** A change made on another replica reaches this one's deliveries within this long. */
const ENDPOINTS_MAX_AGE_MS = 1_000;

export type WebhooksAppConfig = Pick<
  WebhooksConfig,
  | 'PRINCIPAL_SECRET'
  | 'BODY_LIMIT'
  | 'ROUTE_POLICY'
  | 'NODE_ENV'
  | 'TOPOLOGY_PREFIX'
  | 'WEBHOOK_ENCRYPTION_KEY'
  | 'WEBHOOK_ALLOW_PRIVATE_NETWORKS'
  | 'WEBHOOK_RETRY_SCHEDULE'
  | 'WEBHOOK_TIMEOUT_MS'
  | 'WEBHOOK_MAX_IN_FLIGHT'
  | 'WEBHOOK_DISABLE_AFTER_MS'
  | 'WEBHOOK_LOG_RETENTION_MS'
  | 'WEBHOOK_ROTATION_OVERLAP_MS'
  | 'WEBHOOK_POLL_MS'
>;

export interface WebhooksDeps {
  config: WebhooksAppConfig;
  logger: Logger;
  mongo: Pick<MongoHandle, 'db' | 'readiness'>;
  /** The broker the change events come from; without one (tests of the HTTP app) only the test event is delivered. */
  amqp?: AmqpClient;
  /** What an admin may read of each resource's records; by default every resource service's own rules. */
  access?: RecordAccess[];
}

/** The whole service wired from its dependencies, as start.ts and the tests use it. */
export function createWebhooks({ config, logger, mongo, amqp, access }: WebhooksDeps) {
  const readers = new Map((access ?? loadRecordAccess(routedServices(readRegistry()))).map((a) => [a.name, a]));
  const endpoints = new EndpointRepository(mongo.db, config.PRINCIPAL_SECRET);
  const deliveries = new DeliveryRepository(mongo.db, config.PRINCIPAL_SECRET);
  const cache = createEndpointCache(endpoints, ENDPOINTS_MAX_AGE_MS);
  const box = createSecretBox(config.WEBHOOK_ENCRYPTION_KEY, 'webhook signing secrets');
  const sender = createSender({ timeoutMs: config.WEBHOOK_TIMEOUT_MS, allowPrivateNetworks: config.WEBHOOK_ALLOW_PRIVATE_NETWORKS });
  const dispatcher = createDispatcher({
    deliveries,
    endpoints,
    cache,
    sender,
    signingSecrets: (endpoint, now) => signingSecrets(box, endpoint, now),
    schedule: config.WEBHOOK_RETRY_SCHEDULE,
    maxInFlight: config.WEBHOOK_MAX_IN_FLIGHT,
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    disableAfterMs: config.WEBHOOK_DISABLE_AFTER_MS,
    retentionMs: config.WEBHOOK_LOG_RETENTION_MS,
    pollMs: config.WEBHOOK_POLL_MS,
    logger,
  });
  // Admins' writes of endpoints go to the audit log as `admin.write` events, through an outbox and
  // a relay of the service's own (they are no change events of a resource).
  const outbox = new ChangeOutbox(mongo.db);
  const relay = amqp
    ? createChangeRelay({
        amqp,
        outbox,
        records: {},
        standalone: [AUDIT_RESOURCE],
        exchange: eventsExchangeName(config.TOPOLOGY_PREFIX),
        logger,
        pollMs: config.WEBHOOK_POLL_MS,
      })
    : undefined;
  const audit = relay
    ? createAuditTrail<'admin.write'>({ outbox, enabled: true, offer: (entry) => relay.offer(entry), logger })
    : noAuditTrail;
  const intake = amqp
    ? createIntake({
        amqp,
        exchange: eventsExchangeName(config.TOPOLOGY_PREFIX),
        queue: `${config.TOPOLOGY_PREFIX}webhooks.deliveries`,
        endpoints: cache,
        deliveries,
        access: readers,
        onAdded: () => dispatcher.wake(),
        logger,
      })
    : undefined;

  const routes = applyPolicy(
    webhookRoutes({
      endpoints,
      deliveries,
      box,
      urlPolicy: { allowPrivateNetworks: config.WEBHOOK_ALLOW_PRIVATE_NETWORKS, production: config.NODE_ENV === 'production' },
      resources: new Set(readers.keys()),
      rotationOverlapMs: config.WEBHOOK_ROTATION_OVERLAP_MS,
      changed: () => cache.invalidate(),
      wake: () => dispatcher.wake(),
      audit,
    }),
    config.ROUTE_POLICY,
  ) as RouteDef[];
  // Not the broker: while it is away, events wait in the queue and what is due is still sent.
  const app: Express = createHttpApp({
    name: 'webhooks',
    logger,
    routes,
    principalSecret: config.PRINCIPAL_SECRET,
    readiness: [mongo.readiness],
    bodyLimit: config.BODY_LIMIT,
  });

  return {
    app,
    endpoints,
    deliveries,
    ensureIndexes: async () => {
      await endpoints.ensureIndexes();
      await deliveries.ensureIndexes();
      await outbox.ensureIndexes();
    },
    /** Starts consuming the events and sending what is due. */
    start() {
      dispatcher.start();
      relay?.start();
      intake?.start();
    },
    async stop() {
      await relay?.stop();
      await intake?.stop();
      await dispatcher.stop();
      await sender.close();
    },
  };
}
