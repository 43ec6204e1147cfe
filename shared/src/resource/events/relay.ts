import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { ObjectId, type Collection } from 'mongodb';
import type { Logger } from 'pino';
import type { AmqpClient } from '../../messaging/client';
import { PublishError } from '../../messaging/client';
import type { ChangeOutbox, OutboxEntry } from './outbox';

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
}

export interface ChangeRelay {
  start(): void;
  /** Runs a pass now (a change was just recorded). */
  wake(): void;
  stop(): Promise<void>;
  /** Events not published yet. */
  backlog(): Promise<number>;
}

/** Entries looked at per pass. */
const BATCH = 50;
/** An entry whose change is not visible yet (its write is in flight) is looked at again after this. */
const NOT_YET_MS = 200;
const BACKOFF_MIN_MS = 1_000;
const BACKOFF_MAX_MS = 60_000;
/** Finished entries and expired leases are removed this often (by whichever relay gets there). */
const PURGE_EVERY_MS = 5 * 60_000;

/**
 * Publishes recorded changes to the `events` topic exchange, routing key = the event's type,
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
  const owner = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;

  let started = false;
  let stopped = false;
  let wakeRequested = false;
  let napping: AbortController | undefined;
  let loop: Promise<void> | undefined;
  let lastPurge = 0;

  /** Whether the change of `entry` is in the record: yes, not yet, or never (its writer failed). */
  async function outcome(entry: OutboxEntry): Promise<'happened' | 'not-yet' | 'never'> {
    const records = options.records[entry.event.resource];
    if (!records) return 'never';
    const id = ObjectId.isValid(entry.recordId) ? new ObjectId(entry.recordId) : null;
    const doc = id && (await records.findOne({ _id: id }, { projection: { version: 1 } }));
    const deleted = entry.event.type.endsWith('.deleted');
    // A version is claimed only by a writer that read the one before: a later claim means this change was made.
    const happened = doc ? !deleted && (doc.version ?? 0) >= entry.seq : deleted || (await outbox.hasLater(entry));
    if (happened) return 'happened';
    return Date.now() - entry.createdAt.getTime() > staleMs ? 'never' : 'not-yet';
  }

  /** Publishes one leased entry; false when the broker went away (end the pass). */
  async function relay(entry: OutboxEntry): Promise<boolean> {
    const meta = { eventId: entry.event.id, type: entry.event.type, requestId: entry.event.requestId };
    if (await outbox.hasEarlierPending(entry)) {
      await outbox.release(entry, owner, new Date(Date.now() + NOT_YET_MS));
      return true;
    }
    const seen = await outcome(entry);
    if (seen === 'never') {
      await outbox.finish(entry, 'void');
      log.info(meta, 'change event voided: its change never happened');
      return true;
    }
    if (seen === 'not-yet') {
      await outbox.release(entry, owner, new Date(Date.now() + NOT_YET_MS));
      return true;
    }
    try {
      await amqp.publishRaw(exchange, entry.event.type, Buffer.from(JSON.stringify(entry.event)), {
        messageId: entry.event.id,
        type: entry.event.type,
        contentType: 'application/json',
        headers: { 'x-request-id': entry.event.requestId },
        // A topic nobody listens to drops the event: consumers bind durable queues of their own.
        mandatory: false,
      });
    } catch (err) {
      const disconnected = err instanceof PublishError && err.failure === 'disconnected';
      await outbox.release(entry, owner, new Date(Date.now() + (disconnected ? 0 : backoff(entry.attempts))), (err as Error).message);
      log.warn({ ...meta, err: (err as Error).message }, 'publishing a change event failed; will retry');
      return !disconnected;
    }
    await outbox.finish(entry, 'published');
    log.debug(meta, 'change event published');
    return true;
  }

  async function pass(): Promise<void> {
    while (!stopped && amqp.isConnected()) {
      const due = await outbox.due(BATCH);
      let leased = 0;
      for (const entry of due) {
        if (stopped || !(await outbox.lease(entry, owner, leaseMs))) continue;
        leased += 1;
        if (!(await relay({ ...entry, attempts: entry.attempts + 1 }))) return;
      }
      if (due.length < BATCH || leased === 0) break;
    }
    if (Date.now() - lastPurge > PURGE_EVERY_MS) {
      lastPurge = Date.now();
      await outbox.purge();
    }
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
    wake() {
      if (!started || stopped) return;
      wakeRequested = true;
      napping?.abort();
    },
    async stop() {
      stopped = true;
      napping?.abort();
      await loop;
    },
    backlog: () => outbox.pendingCount(),
  };
}

/** 1 s, 2 s, 4 s … up to a minute, with ±20 % jitter so replicas do not retry in step. */
function backoff(attempts: number): number {
  const base = Math.min(BACKOFF_MAX_MS, BACKOFF_MIN_MS * 2 ** Math.max(0, attempts - 1));
  return Math.round(base * (0.8 + Math.random() * 0.4));
}
