import { randomUUID } from 'node:crypto';
import type { Principal } from '../../principal';
import { currentRequest } from '../../request-context';
import { currentOrigin, type ChangeEvent, type EventActor, type EventOrigin } from './change-event';

/** Who did what an audit record is about. */
export type AuditActorKind = 'user' | 'admin' | 'master-key' | 'anonymous' | 'system';
export interface AuditActor {
  kind: AuditActorKind;
  /** The user's id (`user`, `admin`); null otherwise. */
  id: string | null;
}

/** What an audit record is about: a user, or a record of a resource (`kind` is the resource). */
export interface AuditSubject {
  kind: string;
  id: string | null;
}

export type AuditOutcome = 'success' | 'failure';

/**
 * An event a service records for the audit log only, not a change of a record: identity's
 * `auth.*` steps, and `admin.write` of what has no change events (the webhooks service's
 * endpoints). Published on the `events` exchange like a change event, through the same outbox: an
 * event that is its own record (resource `audit`, record id = event id, seq 1), so the relay
 * publishes it on sight and never waits on another. The audit service stores it; the consumers of
 * changes never see it (its routing key, the type, is not `<resource>.<change>`).
 */
export interface AuditEvent {
  id: string;
  type: string;
  resource: 'audit';
  recordId: string;
  seq: 1;
  at: string;
  requestId: string;
  actor: AuditActor;
  subject: AuditSubject | null;
  outcome: AuditOutcome;
  /** Never a password, a token, a code or a secret: reason codes, methods, ids. */
  details: Record<string, unknown>;
  origin?: EventOrigin;
}

export const AUDIT_RESOURCE = 'audit';

/** The actor a principal is: a user or an admin by id, the master key, or nobody; `system` outside a request. */
export function auditActorOf(principal: Principal | undefined): AuditActor {
  if (!principal) return { kind: 'system', id: null };
  if (principal.kind === 'master') return { kind: 'master-key', id: null };
  if (principal.kind === 'user') return { kind: principal.role === 'admin' ? 'admin' : 'user', id: principal.id };
  return { kind: 'anonymous', id: null };
}

/** A change event's actor as the audit log names actors (`system` for work outside a request). */
export function auditActorOfChange(actor: EventActor, requestId: string): AuditActor {
  if (actor === null) return { kind: requestId === 'system' ? 'system' : 'anonymous', id: null };
  if (actor.role === 'master') return { kind: 'master-key', id: null };
  return { kind: actor.role === 'admin' ? 'admin' : 'user', id: actor.id };
}

export interface AuditEventInit {
  outcome: AuditOutcome;
  subject: AuditSubject | null;
  /** By default the request's principal (`system` outside a request). */
  actor?: AuditActor;
  details?: Record<string, unknown>;
}

/** A new audit event, named after the request being served (its id, principal and origin). */
export function auditEvent(type: string, init: AuditEventInit, now = new Date()): AuditEvent {
  const request = currentRequest();
  const id = randomUUID();
  const origin = currentOrigin();
  return {
    id,
    type,
    resource: AUDIT_RESOURCE,
    recordId: id,
    seq: 1,
    at: now.toISOString(),
    requestId: request?.requestId ?? 'system',
    actor: init.actor ?? auditActorOf(request?.principal),
    subject: init.subject,
    outcome: init.outcome,
    details: init.details ?? {},
    ...(origin ? { origin } : {}),
  };
}

/** The type of the audit event of a write by an admin or the master key. */
export const ADMIN_WRITE = 'admin.write';

/**
 * The `admin.write` audit event of a change an admin or the master key made, or null for anyone
 * else's. The relay publishes it beside the change event, from the same outbox entry, so the audit
 * log needs no queue of every change: its id is the change event's with `:admin.write`, the same
 * on every redelivery. It names the fields changed, never their values.
 */
export function adminWriteOf(event: ChangeEvent): AuditEvent | null {
  const actor = event.actor;
  if (!actor || (actor.role !== 'admin' && actor.role !== 'master')) return null;
  const id = `${event.id}:${ADMIN_WRITE}`;
  return {
    id,
    type: ADMIN_WRITE,
    resource: AUDIT_RESOURCE,
    recordId: id,
    seq: 1,
    at: event.at,
    requestId: event.requestId,
    actor: auditActorOfChange(actor, event.requestId),
    subject: { kind: event.resource, id: event.recordId },
    outcome: 'success',
    details: { resource: event.resource, change: event.type.slice(event.resource.length + 1), changed: event.changed },
    ...(event.origin ? { origin: event.origin } : {}),
  };
}
