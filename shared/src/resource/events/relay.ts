import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { ObjectId, type Collection } from 'mongodb';
import type { Logger } from 'pino';
import type { AmqpClient } from '../../messaging/client';
import { PublishError } from '../../messaging/client';
import { publishBackoff as backoff } from '../../messaging/backoff';
import { adminWriteOf } from './audit-event';
import type { ChangeEvent } from './change-event';
import type { ChangeOutbox, OutboxEntry, OutboxEvent } from './outbox';

/** What the relay reads of a record: its version. Any collection of records is one (cast it). */
export type VersionedCollection = Collection<{ _id: ObjectId; version?: number }>;

export interface ChangeRelayOptions {
  amqp: AmqpClient;
  outbox: ChangeOutbox;
  /** The collection of each resource the outbox records changes of: where a change is seen to have happened. */
  records: Record<string, VersionedCollection>;
  /** The topic exchange (declared on every connect). */
  exchange: string;
  logger: Logger;
  /** Pause between passes when nothing wakes the relay. */
  pollMs: number;
  /** How long a claimed entry is this relay's; longer than a publish may take (10 s). */
  leaseMs?: number;
  /** An entry whose change has not shown after this long never happened: it is voided. */
  staleMs?: number;
  /**
   * Resources whose events are their own record (`audit`: identity's auth events, the webhooks
   * service's admin writes): written by the outbox insert alone, so nothing is checked before they
   * are published.
   */
  standalone?: readonly string[];
}

export interface ChangeRelay {
  start(): void;
  /** Runs a pass now. */
  wake(): void;
  /**
   * A change this process just made: published at once (a lease, the publish) when it is its
   * record's first, or follows one this relay published; otherwise, or when that fails, a pass.
   */
  offer(entry: OutboxEntry): void;
  stop(): Promise<void>;
  /** Events not published yet. */
  backlog(): Promise<number>;
}

/** Entries looked at per batch. */
const BATCH = 100;
/** An entry whose change is not visible yet (its write is in flight) is looked at again after this. */
const NOT_YET_MS = 200;
/** Records whose last published sequence this relay remembers (for `offer`'s order check). */
const REMEMBERED_RECORDS = 10_000;
/** How often the events `offer` published are marked so, together. */
const MARK_EVERY_MS = 50;
/** Finished entries and expired leases are removed this often (by whichever relay gets there). */
const PURGE_EVERY_MS = 5 * 60_000;

/**
 * Publishes recorded changes to the `events` topic exchange, routing key = the event's type (and,
 * beside a change an admin or the master key made, its `admin.write` audit event),
 * persistent, on the confirm channel: claim (a lease) → check that the change happened → publish
 * → mark published once the broker confirms. Per record in order: an entry waits while an earlier
 * one of its record is pending. At least once: a relay that dies between the confirm and the mark
 * publishes again, with the same event id, which consumers de-duplicate on.
 */
export function createChangeRelay(options: ChangeRelayOptions): ChangeRelay {
  const { amqp, outbox, exchange } = options;
  const log = options.logger.child({ component: 'change-relay' });
  const leaseMs = options.leaseMs ?? 30_000;
  const staleMs = options.staleMs ?? 10_000;
  const standalone = new Set(options.standalone ?? []);
  const owner = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;

  let started = false;
  let stopped = false;
  let wakeRequested = false;
  let napping: AbortController | undefined;
  let loop: Promise<void> | undefined;
  let lastPurge = 0;
  /** Record id → the last sequence this relay published of it. */
  const published = new Map<string, number>();
  const remember = (entry: OutboxEntry) => {
    published.delete(entry.recordId);
    published.set(entry.recordId, entry.seq);
    if (published.size > REMEMBERED_RECORDS) published.delete(published.keys().next().value!);
  };

  /** Entries published by `offer` and not yet marked so: marked together, every MARK_EVERY_MS. */
  let toMark: string[] = [];
  let markTimer: NodeJS.Timeout | undefined;
  function markSoon(id: string): void {
    toMark.push(id);
    markTimer ??= setTimeout(() => void flushMarks(), MARK_EVERY_MS);
  }
  async function flushMarks(): Promise<void> {
    if (markTimer) clearTimeout(markTimer);
    markTimer = undefined;
    const ids = toMark;
    toMark = [];
    // Unmarked, an entry is published again once due (at least once: consumers de-duplicate).
    await outbox.publishedAll(ids).catch((err: Error) => log.warn({ err: err.message }, 'marking published events failed; they go again'));
  }

  /**
   * `offer`'s path for an event that is its own record: nothing to order it after, and publishing
   * it twice is harmless (consumers de-duplicate on its id), so no lease: publish, and mark it
   * with the others published meanwhile. Its entry is due only later (`claim`'s `dueAfterMs`), so a
   * pass takes it only when this did not.
   */
  async function offeredStandalone(entry: OutboxEntry): Promise<void> {
    await publish(entry);
    markSoon(entry._id);
  }

  /** `offer`'s path: one entry, when nothing of its record can be pending before it. */
  async function offered(entry: OutboxEntry): Promise<void> {
    if (standalone.has(entry.event.resource)) return offeredStandalone(entry);
    if (entry.seq !== 1 && published.get(entry.recordId) !== entry.seq - 1) return wake();
    if (!(await outbox.lease(entry, owner, leaseMs))) return; // a pass has it
    const leased = { ...entry, attempts: entry.attempts + 1 };
    try {
      await publish(leased);
    } catch (err) {
      await outbox.release(leased, owner, new Date(), (err as Error).message);
      return wake();
    }
    await outbox.publishedAll([leased._id]);
    remember(leased);
  }

  /**
   * Whether the change of each entry is in its record: yes, not yet, or never (its writer failed).
   * A version is claimed only by a writer that read the one before, so a later claim of the record
   * means this change was made; a delete was made when the record is gone.
   */
  async function outcomes(entries: OutboxEntry[], latest: Map<string, number>): Promise<Map<string, 'happened' | 'not-yet' | 'never'>> {
    const versions = new Map<string, number>();
    const byResource = new Map<string, ObjectId[]>();
    for (const entry of entries) {
      if (standalone.has(entry.event.resource) || !ObjectId.isValid(entry.recordId)) continue;
      byResource.set(entry.event.resource, [...(byResource.get(entry.event.resource) ?? []), new ObjectId(entry.recordId)]);
    }
    for (const [resource, ids] of byResource) {
      const records = options.records[resource];
      if (!records) continue;
      for (const doc of await records.find({ _id: { $in: ids } }, { projection: { version: 1 } }).toArray()) {
        versions.set(doc._id.toHexString(), doc.version ?? 0);
      }
    }
    const result = new Map<string, 'happened' | 'not-yet' | 'never'>();
    for (const entry of entries) {
      if (standalone.has(entry.event.resource)) {
        result.set(entry._id, 'happened');
        continue;
      }
      const version = versions.get(entry.recordId);
      const deleted = entry.event.type.endsWith('.deleted');
      const later = (latest.get(entry.recordId) ?? 0) > entry.seq;
      const happened = version !== undefined ? !deleted && version >= entry.seq : deleted || later;
      result.set(entry._id, happened ? 'happened' : Date.now() - entry.createdAt.getTime() > staleMs ? 'never' : 'not-yet');
    }
    return result;
  }

  /**
   * One batch: lease the due entries, decide each (in a few reads for the whole batch), publish
   * the ready ones in order, their confirms awaited together, and mark them. False when the broker
   * went away.
   */
  async function relayBatch(due: OutboxEntry[]): Promise<{ leased: number; connected: boolean }> {
    const leased = await outbox.leaseAll(due, owner, leaseMs);
    if (leased.length === 0) return { leased: 0, connected: true };
    const { pending, latest } = await outbox.around(leased);
    const inBatch = new Set(leased.map((e) => e._id));
    // An entry waits while an earlier change of its record is pending elsewhere (another relay's,
    // or not due yet): a record's events go out in order.
    const waiting = leased.filter((e) =>
      (pending.get(e.recordId) ?? []).some((seq) => seq < e.seq && !inBatch.has(`${e.recordId}:${seq}`)),
    );
    const candidates = leased.filter((e) => !waiting.includes(e)).sort((a, b) => a.seq - b.seq);
    const seen = await outcomes(candidates, latest);
    // Within the batch too: after a change of a record that has not shown yet, its later ones wait.
    const blocked = new Set<string>();
    for (const entry of candidates) {
      if (blocked.has(entry.recordId)) seen.set(entry._id, 'not-yet');
      else if (seen.get(entry._id) === 'not-yet') blocked.add(entry.recordId);
    }
    const never = candidates.filter((e) => seen.get(e._id) === 'never');
    const notYet = candidates.filter((e) => seen.get(e._id) === 'not-yet');
    const ready = candidates.filter((e) => seen.get(e._id) === 'happened').sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
    await outbox.voidAll(never.map((e) => e._id));
    for (const entry of never)
      log.info({ eventId: entry.event.id, type: entry.event.type }, 'change event voided: its change never happened');
    await outbox.releaseAll(
      [...waiting, ...notYet].map((e) => e._id),
      owner,
      new Date(Date.now() + NOT_YET_MS),
    );
    // Published on one confirm channel, in order; the confirms come back together.
    const results = await Promise.allSettled(ready.map((entry) => publish(entry)));
    const done = ready.filter((_, i) => results[i]!.status === 'fulfilled');
    await outbox.publishedAll(done.map((e) => e._id));
    for (const entry of done) remember(entry);
    let connected = true;
    for (const [i, result] of results.entries()) {
      if (result.status === 'fulfilled') continue;
      const entry = ready[i]!;
      const err = result.reason as Error;
      const disconnected = err instanceof PublishError && err.failure === 'disconnected';
      if (disconnected) connected = false;
      await outbox.release(entry, owner, new Date(Date.now() + (disconnected ? 0 : backoff(entry.attempts))), err.message);
      log.warn({ eventId: entry.event.id, type: entry.event.type, err: err.message }, 'publishing a change event failed; will retry');
    }
    return { leased: leased.length, connected };
  }

  function publishOne(event: OutboxEvent): Promise<void> {
    return amqp.publishRaw(exchange, event.type, Buffer.from(JSON.stringify(event)), {
      messageId: event.id,
      type: event.type,
      contentType: 'application/json',
      headers: { 'x-request-id': event.requestId },
      // A topic nobody listens to drops the event: consumers bind durable queues of their own.
      mandatory: false,
    });
  }

  /** An entry's event, and for a change an admin or the master key made, its `admin.write` beside it. */
  async function publish(entry: OutboxEntry): Promise<void> {
    const adminWrite = standalone.has(entry.event.resource) ? null : adminWriteOf(entry.event as ChangeEvent);
    await Promise.all([publishOne(entry.event), ...(adminWrite ? [publishOne(adminWrite)] : [])]);
  }

  async function pass(): Promise<void> {
    while (!stopped && amqp.isConnected()) {
      const due = await outbox.due(BATCH);
      const { leased, connected } = await relayBatch(due);
      if (!connected || due.length < BATCH || leased === 0) break;
    }
    if (Date.now() - lastPurge > PURGE_EVERY_MS) {
      lastPurge = Date.now();
      await outbox.purge();
    }
  }

  function wake(): void {
    if (!started || stopped) return;
    wakeRequested = true;
    napping?.abort();
  }

  async function nap(ms: number): Promise<void> {
    const controller = new AbortController();
    napping = controller;
    try {
      await sleep(ms, undefined, { signal: controller.signal });
    } catch {
      // woken up
    } finally {
      napping = undefined;
    }
  }

  async function run(): Promise<void> {
    while (!stopped) {
      wakeRequested = false;
      try {
        if (amqp.isConnected()) await pass();
      } catch (err) {
        log.warn({ err: (err as Error).message }, 'change outbox pass failed');
      }
      if (stopped) break;
      // While the broker is away, look often: the first pass after the reconnect sends what waited.
      if (!wakeRequested) await nap(amqp.isConnected() ? options.pollMs : Math.min(options.pollMs, 250));
    }
  }

  return {
    start() {
      if (started) return;
      started = true;
      amqp.onReady((channel) => channel.assertExchange(exchange, 'topic', { durable: true }).then(() => undefined));
      loop = run();
    },
    wake,
    offer(entry) {
      if (!started || stopped) return;
      if (!amqp.isConnected()) return wake();
      offered(entry).catch((err: Error) => {
        log.warn({ eventId: entry.event.id, err: err.message }, 'publishing a change event at once failed; a pass will');
        wake();
      });
    },
    async stop() {
      stopped = true;
      napping?.abort();
      await loop;
      await flushMarks();
    },
    backlog: () => outbox.pendingCount(),
  };
}
