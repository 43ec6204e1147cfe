import { randomUUID } from 'node:crypto';
import type { Principal } from '../../principal';
import { currentRequest } from '../../request-context';

/**
 * A change event: one per create, update and delete of a record, published on the `events`
 * topic exchange with routing key `<resource>.<change>` (docs/api.md, "Change events").
 */
export type Change = 'created' | 'updated' | 'deleted';

export const CHANGES: readonly Change[] = ['created', 'updated', 'deleted'];

/** Who made the change: a user's id and role, the master key (`id: null`), or null (anonymous, or no request). */
export type EventActor = { id: string | null; role: 'user' | 'admin' | 'master' } | null;

export interface ChangeEvent<R extends Record<string, unknown> = Record<string, unknown>> {
  /** Unique, and the same on every redelivery: consumers de-duplicate on it. */
  id: string;
  /** `<resource>.<change>`, also the routing key. */
  type: string;
  resource: string;
  recordId: string;
  /**
   * The record's version after the change (a delete: one past the last version): per record,
   * a larger `seq` is a later change, so a consumer can drop an older event that arrives late.
   */
  seq: number;
  /** When the change was made (ISO 8601). */
  at: string;
  /** The HTTP request that made it; `system` for work outside a request. */
  requestId: string;
  actor: EventActor;
  /** The stored record after the change (before it, for a delete), dates as ISO 8601. */
  record: R;
  /** The fields an update changed (empty for a create or a delete). */
  changed: string[];
  /**
   * An update: the values before it of every field it changed, system fields included (a field
   * it set that was unset before is null), so `{ ...record, ...previous }` is the record before.
   */
  previous?: Record<string, unknown>;
  /**
   * Where the request that made the change came from (absent outside a request). For the audit
   * log only: realtime and webhooks never pass it on.
   */
  origin?: EventOrigin;
}

/** The client's address (as the gateway resolved it) and `User-Agent`, truncated to 512 characters. */
export interface EventOrigin {
  ip: string | null;
  userAgent: string | null;
}

/** The origin of the request being served, or undefined outside one. */
export function currentOrigin(): EventOrigin | undefined {
  const request = currentRequest();
  if (!request) return undefined;
  return { ip: request.clientAddress ?? null, userAgent: request.userAgent?.slice(0, 512) ?? null };
}

/** The exchange change events are published to (a prefix keeps parallel tests apart). */
export const eventsExchangeName = (prefix = '') => `${prefix}events`;

export function actorOf(principal: Principal | undefined): EventActor {
  if (!principal || principal.kind === 'anonymous') return null;
  if (principal.kind === 'master') return { id: null, role: 'master' };
  return { id: principal.id, role: principal.role };
}

/** A record as JSON carries it: dates as ISO 8601, nothing else changed. */
export function plainRecord(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).map(([key, value]) => [key, value instanceof Date ? value.toISOString() : value]));
}

/** A new event for `record` of `resource`, named after the request being served. */
export function changeEvent(
  resource: string,
  change: Change,
  record: { id: string } & Record<string, unknown>,
  seq: number,
  changed: string[] = [],
  now = new Date(),
  previous?: Record<string, unknown>,
): ChangeEvent {
  const request = currentRequest();
  return {
    id: randomUUID(),
    type: `${resource}.${change}`,
    resource,
    recordId: record.id,
    seq,
    at: now.toISOString(),
    requestId: request?.requestId ?? 'system',
    actor: actorOf(request?.principal),
    record: plainRecord(record),
    changed,
    ...(previous ? { previous: plainRecord(previous) } : {}),
    ...(request ? { origin: currentOrigin() } : {}),
  };
}

/** The fields whose stored value differs between `before` and `after` (system fields left out). */
export function changedFields(before: Record<string, unknown>, after: Record<string, unknown>, ignored: readonly string[]): string[] {
  const same = (a: unknown, b: unknown) =>
    JSON.stringify(a instanceof Date ? a.toISOString() : a) === JSON.stringify(b instanceof Date ? b.toISOString() : b);
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...keys].filter((key) => !ignored.includes(key) && !same(before[key], after[key]));
}
