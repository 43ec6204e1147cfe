import { setTimeout as sleep } from 'node:timers/promises';
import type { ConsumeMessage } from 'amqplib';
import type { Logger, Principal } from '@restgate/shared';
import type { AmqpClient } from '@restgate/shared/messaging';
import type { ChangeEvent, RecordAccess } from '@restgate/shared/resource';
import type { DeliveryRepository, NewDelivery } from '../data/delivery.repository';
import { subscribed } from '../domain/event-types';
import type { EndpointCache } from './endpoint-cache';

type Channel = Parameters<Parameters<AmqpClient['onReady']>[0]>[0];

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

const PREFETCH = 50;
const REQUEUE_DELAY_MS = 500;

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
  const log = logger.child({ component: 'webhook-intake' });
  let stopped = false;

  async function handle(channel: Channel, message: ConsumeMessage): Promise<void> {
    let event: ChangeEvent;
    try {
      event = JSON.parse(message.content.toString('utf8')) as ChangeEvent;
      if (
        typeof event.id !== 'string' ||
        typeof event.type !== 'string' ||
        typeof event.recordId !== 'string' ||
        typeof event.seq !== 'number'
      )
        throw new Error('not a change event');
    } catch (err) {
      log.warn({ messageId: message.properties.messageId, err: (err as Error).message }, 'dropping an unreadable change event');
      channel.ack(message);
      return;
    }
    try {
      const targets = (await endpoints.all()).filter((e) => e.active && subscribed(e.events, event.type));
      if (targets.length > 0) {
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
      }
      channel.ack(message);
    } catch (err) {
      log.warn(
        { eventId: event.id, err: (err as Error).message },
        'could not write the deliveries of a change event; it goes back to the queue',
      );
      await sleep(REQUEUE_DELAY_MS);
      if (!stopped) channel.nack(message, false, true);
    }
  }

  return {
    start() {
      amqp.onReady(async (channel) => {
        await channel.assertExchange(exchange, 'topic', { durable: true });
        await channel.assertQueue(queue, { durable: true, arguments: { 'x-queue-type': 'quorum' } });
        await channel.bindQueue(queue, exchange, '#');
        await channel.prefetch(PREFETCH);
        let chain = Promise.resolve();
        await channel.consume(queue, (message) => {
          if (!message) return;
          chain = chain.then(() => handle(channel, message)).catch(() => undefined);
        });
      });
      amqp.start();
    },
    async stop() {
      stopped = true;
      await amqp.stop();
    },
  };
}
