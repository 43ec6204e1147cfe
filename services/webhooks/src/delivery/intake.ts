import type { Logger, Principal } from '@restgate/shared';
import type { AmqpClient } from '@restgate/shared/messaging';
import { createChangeConsumer, type ChangeEvent, type RecordAccess } from '@restgate/shared/resource';
import type { DeliveryRepository, NewDelivery } from '../data/delivery.repository';
import { subscribed } from '../domain/event-types';
import type { EndpointCache } from './endpoint-cache';

export interface IntakeOptions {
  amqp: AmqpClient;
  exchange: string;
  /** This service's queue: durable, quorum, bound to every change event. */
  queue: string;
  endpoints: EndpointCache;
  deliveries: DeliveryRepository;
  /** Each resource's rules, by name: what an admin may read of a record. */
  access: ReadonlyMap<string, RecordAccess>;
  /** Called once an event's deliveries are written. */
  onAdded: () => void;
  logger: Logger;
}

/** Unacknowledged events held at once; their deliveries are written one event at a time. */
const PREFETCH = 50;

/** An admin who owns no record: what `data` shows is what any admin may read. */
const ADMIN: Principal = { kind: 'user', id: '000000000000000000000000', role: 'admin', amr: ['pwd', 'otp'] };

/** The body every attempt of an event's delivery sends: `{ type, timestamp, data }` (Standard Webhooks). */
export function deliveryBody(event: ChangeEvent, access: ReadonlyMap<string, RecordAccess>): string {
  const reader = access.get(event.resource);
  const data = reader ? (reader.view(event.record, ADMIN, 'record') ?? { id: event.recordId }) : event.record;
  return JSON.stringify({ type: event.type, timestamp: event.at, data });
}

/**
 * Turns each change event into one delivery per endpoint subscribed to its type, written before
 * the event is acknowledged: a delivery is never lost to a crash, and an event delivered twice
 * (the broker's at-least-once) finds its deliveries written and adds none.
 */
export function createIntake(options: IntakeOptions) {
  const { amqp, exchange, queue, endpoints, deliveries, access, onAdded, logger } = options;
  return createChangeConsumer({
    amqp,
    exchange,
    queue,
    prefetch: PREFETCH,
    logger: logger.child({ component: 'webhook-intake' }),
    failure: 'could not write the deliveries of a change event',
    handle: async (event) => {
      const targets = (await endpoints.all()).filter((e) => e.active && subscribed(e.events, event.type));
      if (targets.length === 0) return;
      const body = deliveryBody(event, access);
      const batch: NewDelivery[] = targets.map((e) => ({
        endpointId: e._id,
        eventId: event.id,
        type: event.type,
        orderKey: `${e._id.toHexString()}|${event.resource}:${event.recordId}`,
        seq: event.seq,
        body,
        requestId: event.requestId ?? null,
      }));
      await deliveries.add(batch, new Date());
      onAdded();
    },
  });
}
