export {
  actorOf,
  changedFields,
  changeEvent,
  CHANGES,
  currentOrigin,
  eventsExchangeName,
  plainRecord,
  type Change,
  type ChangeEvent,
  type EventActor,
  type EventOrigin,
} from './change-event';
export {
  ADMIN_WRITE,
  adminWriteOf,
  auditActorOf,
  auditActorOfChange,
  auditEvent,
  AUDIT_RESOURCE,
  type AuditActor,
  type AuditActorKind,
  type AuditOutcome,
  type AuditSubject,
  type AuditEvent,
  type AuditEventInit,
} from './audit-event';
export { ChangeOutbox, CHANGE_OUTBOX_COLLECTION, type OutboxEntry, type OutboxEvent } from './outbox';
export { recordedWrites, type RecordedWrites } from './recorded-writes';
export { createChangeRelay, type ChangeRelay, type ChangeRelayOptions, type VersionedCollection } from './relay';
export { CHANGE_BINDINGS, createChangeConsumer, type ChangeConsumerOptions } from './consumer';
export { createAuditTrail, noAuditTrail, type AuditTrail, type AuditTrailOptions } from './audit-trail';
