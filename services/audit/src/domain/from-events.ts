import { auditActorOfChange, type AuditEvent, type ChangeEvent } from '@restgate/shared/resource';
import type { AuditInput } from './audit-record';

/** The change events the log reads (the others' admin writes come as `admin.write`). */
const USERS = 'users';
/** What the log's queue is bound to: audit events and the users' changes. */
export const AUDIT_BINDINGS = ['auth.#', 'admin.write', `${USERS}.*`];

/** The housekeeping job's own record. */
export const RETENTION_TYPE = 'audit.retention.applied';

const isAuditEvent = (event: ChangeEvent | AuditEvent): event is AuditEvent => event.resource === 'audit';

/**
 * The records an event makes: an audit event (`auth.*`; `admin.write`, which the relays publish
 * beside every change an admin or the master key made, and the webhooks service for its
 * endpoints) is one as it is; a change of a user makes `users.created`, `users.deleted` or (a
 * changed role) `users.role_changed`. Each record's id comes from the event's, so a redelivered
 * event makes the same ids, which the log stores once.
 */
export function recordsOf(event: ChangeEvent | AuditEvent): AuditInput[] {
  const origin = { ip: event.origin?.ip ?? null, userAgent: event.origin?.userAgent ?? null };
  const base = { at: new Date(event.at), requestId: event.requestId, ...origin };
  if (isAuditEvent(event)) {
    if (!event.type.startsWith('auth.') && event.type !== 'admin.write') return [];
    return [
      {
        ...base,
        id: event.id,
        type: event.type,
        outcome: event.outcome === 'failure' ? 'failure' : 'success',
        actor: event.actor,
        subject: event.subject ?? null,
        details: event.details ?? {},
      },
    ];
  }
  const actor = auditActorOfChange(event.actor, event.requestId);
  const change = event.type.slice(event.resource.length + 1);
  const out: AuditInput[] = [];
  if (event.resource === USERS) {
    const subject = { kind: 'user', id: event.recordId };
    const common = { ...base, outcome: 'success' as const, actor, subject };
    if (change === 'created') out.push({ ...common, id: event.id, type: 'users.created', details: { role: event.record.role ?? null } });
    else if (change === 'deleted') out.push({ ...common, id: event.id, type: 'users.deleted', details: {} });
    else if (change === 'updated' && event.changed.includes('role')) {
      const from = event.previous?.role ?? null;
      out.push({ ...common, id: event.id, type: 'users.role_changed', details: { from, to: event.record.role ?? null } });
    }
  }
  return out;
}
