import type { Logger } from '@restgate/shared';
import type { AuditRepository } from './data/audit.repository';
import { RETENTION_TYPE } from './domain/from-events';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

/**
 * Removes what the log keeps no longer (AUDIT_RETENTION_DAYS), the oldest first, and records that
 * it did, in the log itself: when, up to which record, and that record's hash (so the chain that
 * is left is anchored). Every replica runs it; the cut-off is on the hour, and the record's id is
 * the cut-off's, so two replicas running it in the same hour store one record.
 */
export async function applyRetention(records: AuditRepository, retentionDays: number, now = new Date()): Promise<number> {
  const cutoff = new Date(Math.floor((now.getTime() - retentionDays * DAY_MS) / HOUR_MS) * HOUR_MS);
  const { deleted, lastSeq, lastHash } = await records.purge(cutoff);
  if (deleted === 0) return 0;
  await records.append({
    id: `retention:${cutoff.toISOString()}`,
    at: now,
    type: RETENTION_TYPE,
    outcome: 'success',
    actor: { kind: 'system', id: null },
    subject: null,
    ip: null,
    userAgent: null,
    requestId: 'system',
    details: { before: cutoff.toISOString(), retentionDays, deleted, lastDeletedSeq: lastSeq, lastDeletedHash: lastHash },
  });
  return deleted;
}

/** Runs `applyRetention` now and every hour until stopped. */
export function scheduleRetention(records: AuditRepository, retentionDays: number, logger: Logger) {
  const log = logger.child({ component: 'audit-retention' });
  const run = () =>
    applyRetention(records, retentionDays)
      .then((deleted) => {
        if (deleted > 0) log.info({ deleted, retentionDays }, 'audit events past retention removed');
      })
      .catch((err: Error) => log.warn({ err: err.message }, 'applying the audit retention failed; the next run tries again'));
  let timer: NodeJS.Timeout | undefined;
  return {
    start() {
      void run();
      timer = setInterval(run, HOUR_MS);
      timer.unref();
    },
    stop() {
      if (timer) clearInterval(timer);
    },
  };
}
