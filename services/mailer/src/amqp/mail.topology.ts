import type { Channel } from 'amqplib';
import { MAIL_TYPES } from '../domain/mail.messages';

/**
 * The mailer's RabbitMQ topology, which it alone declares in full: the exchange services publish
 * mail requests to, its work queue, the retry queues and the dead-letter queue. A publisher knows
 * the exchange's name and declares the exchange only; its publishes are `mandatory`, so until the
 * mailer has bound its queue they come back unroutable and wait in the publisher's outbox.
 *
 * Declarations are idempotent; changing an argument of an existing queue fails
 * (PRECONDITION_FAILED), which is why the retry queues carry their delay in their name: a new
 * delay list makes new queues instead of clashing.
 */

/** 1 s, 5 s, 30 s, 2 min, 10 min: about 13 minutes of SMTP trouble before a mail is dead-lettered. */
export const DEFAULT_RETRY_DELAYS_MS: readonly number[] = [1_000, 5_000, 30_000, 120_000, 600_000];

/**
 * Redeliveries (consumer crashed or lost its connection before acking) after which the broker
 * itself moves a message to the dead-letter queue: the backstop against a message that kills
 * its consumer, which no consumer code can catch.
 */
const MAIL_DELIVERY_LIMIT = 20;

export interface MailTopology {
  /** Direct exchange producers publish to, with routing key = message type. */
  exchange: string;
  /** The mailer's work queue. */
  queue: string;
  /** Messages that will not be sent: malformed, refused, or out of retries. */
  deadQueue: string;
  /** Delay queues (shortest first): a message waits out the TTL, then goes back to `queue`. */
  retryQueues: Array<{ delayMs: number; name: string }>;
  /** Routing keys bound to `queue`: every mail type the mailer handles. */
  routingKeys: string[];
}

/** Names of the mail topology. `prefix` keeps parallel test runs (or tenants of one broker) apart. */
export function mailTopology(options: { prefix?: string; retryDelaysMs?: readonly number[] } = {}): MailTopology {
  const prefix = options.prefix ?? '';
  const retryDelays = options.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
  return {
    exchange: `${prefix}restgate.mail`,
    queue: `${prefix}mail.send`,
    deadQueue: `${prefix}mail.dead`,
    retryQueues: retryDelays.map((delayMs) => ({ delayMs, name: `${prefix}mail.retry.${delayMs}ms` })),
    routingKeys: [...MAIL_TYPES],
  };
}

/**
 * Declares the mail topology on `channel` (idempotent). Quorum queues: durable, replicated when
 * the broker is a cluster, with a delivery limit; TTL and at-least-once dead-lettering on quorum
 * queues need RabbitMQ 3.10+.
 */
export async function declareMailTopology(channel: Channel, topology: MailTopology): Promise<void> {
  const quorum = { 'x-queue-type': 'quorum' };
  await channel.assertExchange(topology.exchange, 'direct', { durable: true });
  await channel.assertQueue(topology.deadQueue, { durable: true, arguments: quorum });
  await channel.assertQueue(topology.queue, {
    durable: true,
    arguments: {
      ...quorum,
      'x-delivery-limit': MAIL_DELIVERY_LIMIT,
      'x-dead-letter-exchange': '',
      'x-dead-letter-routing-key': topology.deadQueue,
    },
  });
  for (const routingKey of topology.routingKeys) await channel.bindQueue(topology.queue, topology.exchange, routingKey);
  for (const retry of topology.retryQueues) {
    await channel.assertQueue(retry.name, {
      durable: true,
      arguments: {
        ...quorum,
        'x-message-ttl': retry.delayMs,
        'x-dead-letter-exchange': '',
        'x-dead-letter-routing-key': topology.queue,
        // Without these, a message expiring while the work queue is unavailable could be lost.
        'x-dead-letter-strategy': 'at-least-once',
        'x-overflow': 'reject-publish',
      },
    });
  }
}
