import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '@restgate/shared';
import { PublishError, publishBackoff as backoff, type AmqpClient } from '@restgate/shared/messaging';
import type { OutboxItem, OutboxRepository } from './outbox.repository';
import { declareMailExchange } from './mail-exchange';

export interface OutboxRelayOptions {
  amqp: AmqpClient;
  outbox: OutboxRepository;
  /** The mail exchange: declared on every (re)connect, published to with routing key = message type. */
  exchange: string;
  logger: Logger;
  /** Pause between passes when nothing wakes the relay. */
  pollMs: number;
  /** How long a claimed entry is ours before another relay may take it; longer than a publish may take (10 s). */
  leaseMs?: number;
}

export interface OutboxRelay {
  /** Declares the exchange on every connect and starts polling. Start the AMQP client too. */
  start(): void;
  /** Runs a pass now (a mail request was just written). */
  wake(): void;
  /** Finishes the pass in progress and stops. */
  stop(): Promise<void>;
  /** Mail requests not published yet. */
  backlog(): Promise<number>;
}

/** While the broker is away: how often the waiting backlog is logged. */
const BACKLOG_LOG_EVERY_MS = 30_000;
/** While the broker is away: how often a nap looks whether it is back. */
const RECONNECT_CHECK_MS = 100;
/** Failed attempts after which each further failure is logged as an error, not a warning. */
const ATTEMPTS_WORTH_AN_ERROR = 5;

/**
 * Publishes the outbox's pending mail requests: claim (with a lease) → publish on the confirm
 * channel, `mandatory` → mark sent once the broker confirms. A failed publish is given back with
 * a growing delay; while the broker is away nothing is claimed, and the first pass after the
 * reconnect sends what waited. At least once: a relay that dies between the confirm and the
 * mark publishes again later, and the mailer drops the copy by message id.
 */
export function createOutboxRelay(options: OutboxRelayOptions): OutboxRelay {
  const { amqp, outbox, exchange } = options;
  const log = options.logger.child({ component: 'outbox-relay' });
  const leaseMs = options.leaseMs ?? 30_000;
  const owner = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;

  let started = false;
  let stopped = false;
  let wakeRequested = false;
  let napping: AbortController | undefined;
  let loop: Promise<void> | undefined;
  let lastBacklogLog = 0;

  function wake(): void {
    wakeRequested = true;
    napping?.abort();
  }

  /** Waits `ms`, or less: a `wake()`, or the broker coming back while we wait for it, ends the nap. */
  async function nap(ms: number): Promise<void> {
    const controller = new AbortController();
    napping = controller;
    const until = Date.now() + ms;
    const waitingForBroker = !amqp.isConnected();
    try {
      while (Date.now() < until && !(waitingForBroker && amqp.isConnected())) {
        await sleep(Math.min(waitingForBroker ? RECONNECT_CHECK_MS : ms, until - Date.now()), undefined, { signal: controller.signal });
      }
    } catch {
      // woken up
    } finally {
      napping = undefined;
    }
  }

  async function reportBacklog(): Promise<void> {
    if (Date.now() - lastBacklogLog < BACKLOG_LOG_EVERY_MS) return;
    lastBacklogLog = Date.now();
    const backlog = await outbox.pendingCount().catch(() => undefined);
    if (backlog) log.warn({ backlog }, `broker unavailable: ${backlog} mail request(s) wait in the outbox`);
  }

  /** Publishes one claimed entry; false when the broker went away (stop the pass). */
  async function relay(item: OutboxItem): Promise<boolean> {
    const meta = { messageId: item.envelope.id, requestId: item.envelope.requestId, attempts: item.attempts };
    try {
      await amqp.publish(exchange, item.envelope.type, item.envelope);
    } catch (err) {
      const failure = err instanceof PublishError ? err.failure : 'error';
      const disconnected = failure === 'disconnected';
      // Disconnected: due again at once, and the reconnect is what we wait for.
      const retryAt = new Date(Date.now() + (disconnected ? 0 : backoff(item.attempts)));
      await outbox.release(item, owner, retryAt, (err as Error).message);
      const level = item.attempts >= ATTEMPTS_WORTH_AN_ERROR && !disconnected ? 'error' : 'warn';
      log[level]({ ...meta, failure, err: (err as Error).message, retryAt }, 'publishing a mail request failed; will retry');
      return !disconnected;
    }
    await outbox.markSent(item);
    log.info(meta, 'mail request published');
    return true;
  }

  /**
   * Claims and publishes due entries, one at a time, until none is left or the broker is gone.
   * One at a time: a confirm takes a millisecond or two, and the order of the outbox is kept.
   */
  async function drain(): Promise<void> {
    while (!stopped && amqp.isConnected()) {
      const item = await outbox.claimNext(owner, leaseMs);
      if (!item || !(await relay(item))) return;
    }
  }

  async function run(): Promise<void> {
    while (!stopped) {
      wakeRequested = false;
      try {
        if (amqp.isConnected()) await drain();
        else await reportBacklog();
      } catch (err) {
        // The database, most likely: the next pass tries again.
        log.warn({ err: (err as Error).message }, 'outbox pass failed');
      }
      if (stopped) break;
      if (!wakeRequested) await nap(options.pollMs);
    }
  }

  return {
    start() {
      if (started) return;
      started = true;
      // Only the exchange: the queues are the mailer's. Until it has bound one, publishes come
      // back unroutable and the requests wait here, in the outbox.
      amqp.onReady((channel) => declareMailExchange(channel, exchange));
      loop = run();
    },
    wake() {
      if (started && !stopped) wake();
    },
    async stop() {
      stopped = true;
      napping?.abort();
      await loop;
    },
    backlog: () => outbox.pendingCount(),
  };
}
