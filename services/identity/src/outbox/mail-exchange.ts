import type { ReadyHandler } from '@restgate/shared/messaging';

/** The channel a ready handler gets (identity has no amqplib dependency of its own). */
type Channel = Parameters<ReadyHandler>[0];

/**
 * Where identity sends mail requests: the mailer's exchange (routing key = message type). The
 * mailer owns the rest of that topology (its queues, retries, dead letters) and declares it;
 * identity declares only the exchange it publishes to. Until the mailer has bound its queue,
 * a `mandatory` publish comes back unroutable and the request waits in the outbox.
 */
export function mailExchangeName(prefix = ''): string {
  return `${prefix}restgate.mail`;
}

export async function declareMailExchange(channel: Channel, exchange: string): Promise<void> {
  await channel.assertExchange(exchange, 'direct', { durable: true });
}
