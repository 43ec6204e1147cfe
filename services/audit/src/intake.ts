import type { Logger } from '@restgate/shared';
import type { AmqpClient } from '@restgate/shared/messaging';
import { createChangeConsumer, type AuditEvent, type ChangeEvent } from '@restgate/shared/resource';
import type { AuditRepository } from './data/audit.repository';
import { AUDIT_BINDINGS, recordsOf } from './domain/from-events';

export interface IntakeOptions {
  amqp: AmqpClient;
  exchange: string;
  queue: string;
  records: AuditRepository;
  logger: Logger;
}

/** Events taken from the queue ahead of the one being stored. */
const PREFETCH = 50;

/**
 * The audit events and the users' changes (AUDIT_BINDINGS), into the log in delivery order, acknowledged once stored. One replica at a time consumes (a single
 * active consumer): the chain has one writer, and another replica takes over when it goes.
 */
export function createIntake(options: IntakeOptions) {
  const log = options.logger.child({ component: 'audit-intake' });
  return createChangeConsumer({
    amqp: options.amqp,
    exchange: options.exchange,
    queue: options.queue,
    bindings: AUDIT_BINDINGS,
    queueArguments: { 'x-single-active-consumer': true },
    prefetch: PREFETCH,
    logger: log,
    failure: 'storing an audit event failed',
    handle: async (event) => {
      for (const record of recordsOf(event as ChangeEvent | AuditEvent)) {
        const outcome = await options.records.append(record);
        if (outcome === 'duplicate') log.debug({ eventId: record.id }, 'audit event stored already');
      }
    },
  });
}
