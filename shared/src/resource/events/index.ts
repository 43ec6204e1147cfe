export {
  actorOf,
  changedFields,
  changeEvent,
  CHANGES,
  eventsExchangeName,
  plainRecord,
  type Change,
  type ChangeEvent,
  type EventActor,
} from './change-event';
export { ChangeOutbox, CHANGE_OUTBOX_COLLECTION, type OutboxEntry } from './outbox';
export { recordedWrites, type RecordedWrites } from './recorded-writes';
export { createChangeRelay, type ChangeRelay, type ChangeRelayOptions, type VersionedCollection } from './relay';
export { createChangeConsumer, type ChangeConsumerOptions } from './consumer';
