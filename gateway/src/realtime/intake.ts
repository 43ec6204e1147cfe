import type { Logger } from '@restgate/shared';
import type { AmqpClient } from '@restgate/shared/messaging';
import { createChangeConsumer } from '@restgate/shared/resource';
import type { EventWindow } from './window';

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
  return createChangeConsumer({
    amqp,
    exchange,
    queue,
    queueArguments: { 'x-expires': QUEUE_EXPIRES_MS },
    prefetch: PREFETCH,
    handle: async (event) => {
      await window.append(event);
    },
    logger: logger.child({ component: 'realtime-intake' }),
    failure: 'could not append a change event to the window',
  });
}
