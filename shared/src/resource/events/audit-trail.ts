import type { Logger } from 'pino';
import { auditEvent, type AuditEventInit } from './audit-event';
import type { ChangeOutbox, OutboxEntry } from './outbox';

/** How a service records audit events (`T`: the types it records). */
export interface AuditTrail<T extends string = string> {
  /**
   * Records what the request being served did. Awaited before its answer: a request answered as
   * done has its event in the outbox, which the change relay publishes (at least once).
   */
  record(type: T, init: AuditEventInit): Promise<void>;
  /**
   * Records a failed or refused step of a request that is failing anyway: a write that fails is
   * logged, and the request keeps its own error.
   */
  recordFailure(type: T, init: AuditEventInit): Promise<void>;
}

export interface AuditTrailOptions {
  outbox: ChangeOutbox;
  /** Off: nothing is recorded. */
  enabled: boolean;
  /** The relay publishes a new entry at once (`ChangeRelay.offer`, with the audit resource standalone). */
  offer: (entry: OutboxEntry) => void;
  logger: Logger;
}

/** A pass of any relay takes an audit event only after this: until then, the writer's own relay publishes it. */
const OWN_RELAY_MS = 5_000;

/** Audit events into the service's change outbox, each offered to its relay at once. */
export function createAuditTrail<T extends string>(options: AuditTrailOptions): AuditTrail<T> {
  const log = options.logger.child({ component: 'audit-trail' });
  async function record(type: T, init: AuditEventInit): Promise<void> {
    if (!options.enabled) return;
    const entry = await options.outbox.claim(auditEvent(type, init), new Date(), OWN_RELAY_MS);
    // A fresh random id: taken only if the outbox already holds this very event.
    if (entry) options.offer(entry);
  }
  return {
    record,
    async recordFailure(type, init) {
      try {
        await record(type, init);
      } catch (err) {
        log.error({ type, err: (err as Error).message }, 'an audit event could not be recorded');
      }
    },
  };
}

/** Records nothing (tests of something else, and a trail turned off). */
export const noAuditTrail: AuditTrail<never> = { record: async () => undefined, recordFailure: async () => undefined };
