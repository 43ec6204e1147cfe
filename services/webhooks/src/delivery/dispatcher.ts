import { randomUUID } from 'node:crypto';
import type { Logger } from '@restgate/shared';
import type { ObjectId } from 'mongodb';
import type { DeliveryDocument, DeliveryRepository } from '../data/delivery.repository';
import type { Endpoint, EndpointRepository } from '../data/endpoint.repository';
import { nextAttemptAt, succeeded, type Attempt } from '../domain/outcome';
import { signatureHeader } from '../domain/signing';
import type { EndpointCache } from './endpoint-cache';
import type { Sender } from './sender';

export interface DispatcherOptions {
  deliveries: DeliveryRepository;
  endpoints: EndpointRepository;
  cache: EndpointCache;
  sender: Sender;
  /** The secrets that sign for an endpoint now (the current one, and a rotated-away one within its overlap). */
  signingSecrets: (endpoint: Endpoint, now: Date) => string[];
  schedule: readonly number[];
  maxInFlight: number;
  timeoutMs: number;
  disableAfterMs: number;
  retentionMs: number;
  pollMs: number;
  logger: Logger;
}

/** Due deliveries read and leased at once. */
const BATCH = 200;
/** The least time between two looks for due deliveries while attempts keep finishing. */
const TICK_GAP_MS = 10;
/** A lease outlives the attempt's timeout by this much: a dispatcher that died leaves its deliveries to the others then. */
const LEASE_MARGIN_MS = 30_000;
const PURGE_EVERY_MS = 3_600_000;

/**
 * Sends the due deliveries: per endpoint at most `maxInFlight` at once (a slow or dead endpoint
 * holds its own slots, never another's), per record in event order (only the earliest open
 * delivery of a record to an endpoint is sent; the next waits for it to succeed or fail for good),
 * each attempt under a lease so that replicas never send one delivery at once.
 */
export function createDispatcher(options: DispatcherOptions) {
  const { deliveries, endpoints, cache, sender, signingSecrets, schedule, maxInFlight, timeoutMs, disableAfterMs, retentionMs, pollMs } =
    options;
  const log = options.logger.child({ component: 'webhook-dispatcher' });
  const inFlight = new Map<string, number>();
  const sending = new Set<string>();
  const attempts = new Set<Promise<void>>();
  let stopped = true;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let again = false;
  let lastPurge = 0;

  const busy = (endpointId: ObjectId) => inFlight.get(endpointId.toHexString()) ?? 0;

  async function attempt(leased: DeliveryDocument, endpoint: Endpoint, token: string, free: () => void): Promise<void> {
    const now = new Date();
    const secrets = signingSecrets(endpoint, now);
    let result: Attempt;
    if (secrets.length === 0) {
      result = { at: now, durationMs: 0, error: 'no signing secret opens (was WEBHOOK_ENCRYPTION_KEY changed? rotate the secret)' };
    } else {
      result = await sender.send(
        endpoint.url,
        {
          'webhook-id': leased.eventId,
          'webhook-timestamp': String(Math.floor(now.getTime() / 1_000)),
          'webhook-signature': signatureHeader(secrets, leased.eventId, now, leased.body),
        },
        leased.body,
      );
    }
    // The endpoint's slot is free once the answer is in; writing the log need not hold it.
    free();
    if (succeeded(result)) {
      await deliveries.record(leased._id, token, result, 'succeeded', null);
      if (endpoint.failingSince) await endpoints.succeeded(endpoint._id);
      return;
    }
    const failures = leased.attempts.filter((a) => !succeeded(a)).length + 1;
    const next = nextAttemptAt(result, failures, schedule);
    await deliveries.record(leased._id, token, result, next ? 'retrying' : 'failed', next);
    const what = result.status !== undefined ? `HTTP ${result.status}` : (result.error ?? 'failed');
    log.info(
      { deliveryId: leased._id.toHexString(), endpointId: endpoint._id.toHexString(), eventId: leased.eventId, what, next },
      'delivery attempt failed',
    );
    if (await endpoints.failed(endpoint._id, result.at, what, disableAfterMs)) {
      cache.invalidate();
      log.warn({ endpointId: endpoint._id.toHexString() }, 'endpoint disabled: its deliveries have failed for too long');
    }
  }

  function hold(endpoint: Endpoint): void {
    inFlight.set(endpoint._id.toHexString(), busy(endpoint._id) + 1);
  }
  function release(endpoint: Endpoint): void {
    inFlight.set(endpoint._id.toHexString(), busy(endpoint._id) - 1);
    wake();
  }

  function launch(leased: DeliveryDocument, endpoint: Endpoint, token: string): void {
    const id = leased._id.toHexString();
    let held = true;
    const free = () => {
      if (held) release(endpoint);
      held = false;
    };
    const done = attempt(leased, endpoint, token, free)
      .catch((err: Error) =>
        log.warn({ deliveryId: id, err: err.message }, 'a delivery attempt could not be recorded; it is tried again once its lease ends'),
      )
      .finally(() => {
        free();
        sending.delete(id);
        attempts.delete(done);
      });
    attempts.add(done);
  }

  async function tick(): Promise<void> {
    const now = new Date();
    if (now.getTime() - lastPurge > PURGE_EVERY_MS) {
      lastPurge = now.getTime();
      const purged = await deliveries.purge(new Date(now.getTime() - retentionMs));
      if (purged > 0) log.info({ purged }, 'delivery log: removed what is older than the retention');
    }
    const active = new Map((await cache.all()).filter((e) => e.active).map((e) => [e._id.toHexString(), e]));
    const open = [...active.values()].filter((e) => busy(e._id) < maxInFlight).map((e) => e._id);
    if (open.length === 0) return;
    const due = (await deliveries.due(now, open, BATCH)).filter((d) => !sending.has(d._id.toHexString()));
    if (due.length === 0) return;
    const heads = await deliveries.heads([...new Set(due.map((d) => d.orderKey))]);
    // Behind a head that waits for its retry: moved to that time, so they stop filling the batch.
    const waiting = new Map<number, DeliveryDocument['_id'][]>();
    const chosen: Array<{ delivery: DeliveryDocument; endpoint: Endpoint }> = [];
    for (const delivery of due) {
      const head = heads.get(delivery.orderKey);
      if (head && !head.id.equals(delivery._id)) {
        if (head.nextAt && head.nextAt > now)
          waiting.set(head.nextAt.getTime(), [...(waiting.get(head.nextAt.getTime()) ?? []), delivery._id]);
        continue;
      }
      const endpoint = active.get(delivery.endpointId.toHexString());
      if (!endpoint || busy(endpoint._id) >= maxInFlight) continue;
      hold(endpoint);
      sending.add(delivery._id.toHexString());
      chosen.push({ delivery, endpoint });
    }
    const token = randomUUID();
    const leased = new Map(
      (
        await deliveries
          .leaseMany(
            chosen.map((c) => c.delivery._id),
            now,
            new Date(now.getTime() + timeoutMs + LEASE_MARGIN_MS),
            token,
          )
          .catch((err: Error) => {
            for (const { delivery, endpoint } of chosen) {
              sending.delete(delivery._id.toHexString());
              inFlight.set(endpoint._id.toHexString(), busy(endpoint._id) - 1);
            }
            throw err;
          })
      ).map((d) => [d._id.toHexString(), d]),
    );
    for (const { delivery, endpoint } of chosen) {
      const mine = leased.get(delivery._id.toHexString());
      if (mine) launch(mine, endpoint, token);
      else {
        // Another dispatcher took it between the read and the lease.
        sending.delete(delivery._id.toHexString());
        inFlight.set(endpoint._id.toHexString(), busy(endpoint._id) - 1);
      }
    }
    for (const [until, ids] of waiting) await deliveries.defer(ids, new Date(until));
  }

  function wake(): void {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    clearTimeout(timer);
    running = tick()
      .catch((err: Error) => log.warn({ err: err.message }, 'could not read the due deliveries; trying again shortly'))
      .finally(() => {
        running = undefined;
        if (stopped) return;
        if (again) {
          again = false;
          timer = setTimeout(wake, TICK_GAP_MS);
        } else timer = setTimeout(wake, pollMs);
      });
  }

  return {
    /** Looks for due deliveries now (a new event, a retry by hand). */
    wake,
    start() {
      stopped = false;
      wake();
    },
    /** Stops looking; the attempts in flight finish (each is bounded by the timeout). */
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
      await Promise.all([...attempts]);
    },
  };
}
