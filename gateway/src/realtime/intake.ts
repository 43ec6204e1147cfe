import { setTimeout as sleep } from 'node:timers/promises';
import type { ConsumeMessage } from 'amqplib';
import type { Logger } from '@restgate/shared';
import type { AmqpClient } from '@restgate/shared/messaging';
import type { ChangeEvent } from '@restgate/shared/resource';
import type { EventWindow } from './window';

type Channel = Parameters<Parameters<AmqpClient['onReady']>[0]>[0];

export interface IntakeOptions {
  amqp: AmqpClient;
  window: EventWindow;
  /** The `events` topic exchange. */
  exchange: string;
  /** This replica's queue (its host's). */
  queue: string;
  logger: Logger;
}

/** Unacknowledged events one consumer holds; they are appended in order, one at a time. */
const PREFETCH = 100;
/** While Redis refuses, an event goes back to the queue after this pause (not in a tight loop). */
const REQUEUE_DELAY_MS = 500;
/** A host's queue outlives its last consumer by this much (a restart in the same container takes it over). */
const QUEUE_EXPIRES_MS = 10 * 60_000;

/**
 * Feeds the realtime window from the `events` exchange. Each replica consumes from a queue of its
 * host's, bound to every event: durable and quorum, so it survives a broker restart and a node's
 * loss, and expiring `QUEUE_EXPIRES_MS` after the last consumer is gone. Every replica appends
 * every event; the window keeps the first copy of each (record, sequence), so one replica frozen or
 * killed delays nothing, and a replica that starts late serves resumes from the window all the
 * same. (Two processes on one host share the queue: each event reaches one of them, which is
 * enough, the window being shared.) An event is acknowledged once it is in the window: at least once.
 */
export function createIntake({ amqp, window, exchange, queue, logger }: IntakeOptions) {
  const log = logger.child({ component: 'realtime-intake' });
  let stopped = false;

  async function handle(channel: Channel, message: ConsumeMessage): Promise<void> {
    let event: ChangeEvent;
    try {
      event = JSON.parse(message.content.toString('utf8')) as ChangeEvent;
      if (typeof event.resource !== 'string' || typeof event.recordId !== 'string' || typeof event.seq !== 'number')
        throw new Error('not a change event');
    } catch (err) {
      log.warn({ messageId: message.properties.messageId, err: (err as Error).message }, 'dropping an unreadable change event');
      channel.ack(message);
      return;
    }
    try {
      await window.append(event);
      channel.ack(message);
    } catch (err) {
      log.warn(
        { eventId: event.id, err: (err as Error).message },
        'could not append a change event to the window; it goes back to the queue',
      );
      await sleep(REQUEUE_DELAY_MS);
      if (!stopped) channel.nack(message, false, true);
    }
  }

  return {
    start() {
      amqp.onReady(async (channel) => {
        await channel.assertExchange(exchange, 'topic', { durable: true });
        await channel.assertQueue(queue, { durable: true, arguments: { 'x-queue-type': 'quorum', 'x-expires': QUEUE_EXPIRES_MS } });
        await channel.bindQueue(queue, exchange, '#');
        await channel.prefetch(PREFETCH);
        // One at a time, in delivery order: a chain of appends.
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
