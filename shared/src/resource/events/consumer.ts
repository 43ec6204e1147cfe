import { setTimeout as sleep } from 'node:timers/promises';
import type { ConsumeMessage } from 'amqplib';
import type { Logger } from 'pino';
import type { AmqpClient } from '../../messaging/client';
import type { ChangeEvent } from './change-event';

export interface ChangeConsumerOptions {
  amqp: AmqpClient;
  /** The `events` topic exchange. */
  exchange: string;
  /** The consumer's own queue, durable and quorum. */
  queue: string;
  /** The routing keys it is bound to: every change event (CHANGE_BINDINGS) unless given. */
  bindings?: readonly string[];
  /** More arguments of the queue (`x-expires` for a queue per host). */
  queueArguments?: Record<string, unknown>;
  /** Unacknowledged events held at once. */
  prefetch: number;
  /** What the consumer does with an event; it is acknowledged once this resolves. */
  handle: (event: ChangeEvent) => Promise<void>;
  /** Logs as this component, naming what a failed `handle` could not do. */
  logger: Logger;
  failure: string;
}

/**
 * Every change event of every resource (`<resource>.<change>`), and nothing else published on the
 * exchange (the audit events, `auth.*` and `admin.write`, are the audit log's).
 */
export const CHANGE_BINDINGS: readonly string[] = ['*.created', '*.updated', '*.deleted'];

/** While `handle` fails (its store away), an event goes back to the queue after this pause, not in a tight loop. */
const REQUEUE_DELAY_MS = 500;

/**
 * A consumer of the change events, the same for every one (the gateway's realtime, the webhooks
 * service): its queue declared and bound on every (re)connection, events handled one at a time
 * in delivery order, each acknowledged once handled (at least once), put back after a pause when
 * handling fails, and dropped with a warning when it is not a change event at all.
 */
export function createChangeConsumer(options: ChangeConsumerOptions) {
  const { amqp, exchange, queue, prefetch, handle, logger: log, failure } = options;
  let stopped = false;

  type Channel = Parameters<Parameters<AmqpClient['onReady']>[0]>[0];
  async function receive(channel: Channel, message: ConsumeMessage): Promise<void> {
    let event: ChangeEvent;
    try {
      event = JSON.parse(message.content.toString('utf8')) as ChangeEvent;
      if (
        typeof event.id !== 'string' ||
        typeof event.type !== 'string' ||
        typeof event.resource !== 'string' ||
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
      await handle(event);
      channel.ack(message);
    } catch (err) {
      log.warn({ eventId: event.id, err: (err as Error).message }, `${failure}; it goes back to the queue`);
      await sleep(REQUEUE_DELAY_MS);
      if (!stopped) channel.nack(message, false, true);
    }
  }

  return {
    start() {
      amqp.onReady(async (channel) => {
        await channel.assertExchange(exchange, 'topic', { durable: true });
        await channel.assertQueue(queue, { durable: true, arguments: { 'x-queue-type': 'quorum', ...options.queueArguments } });
        const bindings = options.bindings ?? CHANGE_BINDINGS;
        for (const key of bindings) await channel.bindQueue(queue, exchange, key);
        // A queue declared when every consumer took everything (`#`) narrows to its bindings.
        if (!bindings.includes('#')) await channel.unbindQueue(queue, exchange, '#');
        await channel.prefetch(prefetch);
        // One at a time, in delivery order: a chain.
        let chain = Promise.resolve();
        await channel.consume(queue, (message) => {
          if (!message) return;
          chain = chain.then(() => receive(channel, message)).catch(() => undefined);
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
