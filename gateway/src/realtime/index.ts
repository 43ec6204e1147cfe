import { hostname } from 'node:os';
import type { Logger } from '@restgate/shared';
import { createAmqp } from '@restgate/shared/messaging';
import type { RedisHandle, RevocationList } from '@restgate/shared/limits';
import { eventsExchangeName } from '@restgate/shared/resource';
import type { GatewayConfig } from '../config';
import type { RoutedService } from '../registry';
import { loadResourceAccess, type ResourceAccess } from './access';
import { createHub, type Hub } from './hub';
import { createIntake } from './intake';
import { createStreamLimits, createTickets, type StreamLimits } from './registrations';
import { createEventWindow } from './window';

export { mountRealtime, realtimeRefusal } from './routes';
export { addRealtimeToDocument, realtimeApi } from './api';

/** The window is trimmed this often. */
const TRIM_EVERY_MS = 30_000;

export interface Realtime {
  hub: Hub;
  resources: ReadonlyMap<string, ResourceAccess>;
  limits: StreamLimits;
  tickets: ReturnType<typeof createTickets>;
  settings: { perPrincipal: number; perAddress: number };
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Realtime as one gateway replica runs it: the intake (the `events` exchange into the shared
 * window), the hub (the window's tail out to this replica's streams), and what the replicas share
 * about streams (limits, tickets). Undefined without AMQP_URL: then there is no /realtime.
 */
export function createRealtime(input: {
  config: GatewayConfig;
  logger: Logger;
  redis: RedisHandle;
  services: readonly RoutedService[];
  revocations?: RevocationList;
  resources?: ResourceAccess[];
}): Realtime | undefined {
  const { config, logger, redis } = input;
  if (!config.AMQP_URL) return undefined;
  const prefix = config.REDIS_KEY_PREFIX;
  const resources = new Map((input.resources ?? loadResourceAccess(input.services)).map((access) => [access.name, access]));
  const window = createEventWindow({
    redis: redis.client,
    prefix,
    keepMinutes: config.REALTIME_WINDOW_MINUTES,
    keepEvents: config.REALTIME_WINDOW_EVENTS,
    maxEvents: Math.max(config.REALTIME_WINDOW_EVENTS * 10, 100_000),
  });
  const amqp = createAmqp({ name: 'gateway', url: config.AMQP_URL, logger });
  const intake = createIntake({
    amqp,
    window,
    exchange: eventsExchangeName(config.TOPOLOGY_PREFIX),
    // Named after the host: a process restarted in the same container takes its queue over (and
    // what waited in it); a replica on a new host gets a queue of its own, and the old one expires.
    queue: `${config.TOPOLOGY_PREFIX}realtime.${hostname()}`,
    logger,
  });
  // Blocking reads need a connection of their own; it may queue commands while it reconnects.
  const reader = redis.client.duplicate({ enableOfflineQueue: true, maxRetriesPerRequest: null });
  reader.on('error', () => {
    // the main client logs connection trouble once
  });
  const hub = createHub({
    window,
    reader,
    resources,
    revocations: input.revocations,
    logger,
    heartbeatMs: config.REALTIME_HEARTBEAT_MS,
    bufferBytes: config.REALTIME_BUFFER_BYTES,
  });
  const settings = { perPrincipal: config.REALTIME_MAX_STREAMS_PER_PRINCIPAL, perAddress: config.REALTIME_MAX_STREAMS_PER_ADDRESS };
  const limits = createStreamLimits({ redis: redis.client, prefix, ...settings });
  const tickets = createTickets({ redis: redis.client, prefix });
  let trim: NodeJS.Timeout | undefined;
  return {
    hub,
    resources,
    limits,
    tickets,
    settings,
    async start() {
      intake.start();
      hub.start();
      trim = setInterval(() => {
        window.trim([...resources.keys()]).catch((err: Error) => logger.warn({ err: err.message }, 'realtime: trimming the window failed'));
      }, TRIM_EVERY_MS);
      trim.unref();
    },
    async stop() {
      clearInterval(trim);
      limits.stop();
      await hub.stop();
      await intake.stop();
    },
  };
}
