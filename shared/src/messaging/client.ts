import { setTimeout as sleep } from 'node:timers/promises';
import amqp, { type Channel, type ChannelModel, type ConfirmChannel, type Options } from 'amqplib';
import type { Logger } from 'pino';
import type { ReadinessCheck } from '../health';
import type { MessageEnvelope } from './messages';
import { brokerAddress, brokerRotation, parseBrokerUrls } from './urls';

/**
 * A RabbitMQ connection that stays up: it connects with back-off, reconnects forever until
 * `stop()`, re-runs every `onReady` handler on each new connection (declare topology, start
 * consumers), and publishes on a confirm channel so a publish resolves only once the broker
 * has taken responsibility for the message.
 */

/** Header names shared by producers and consumers. */
export const MESSAGE_HEADERS = {
  /** The HTTP request id that caused the message. */
  requestId: 'x-request-id',
  /** How many delivery attempts have failed so far (set by the consumer when it schedules a retry). */
  attempts: 'x-attempts',
  /** Why the last attempt failed. */
  lastError: 'x-last-error',
  /** Why a message was dead-lettered. */
  deadReason: 'x-dead-reason',
  /** When it was dead-lettered (ISO 8601). */
  deadAt: 'x-dead-at',
  /** The queue a dead-lettered message was consumed from. */
  deadQueue: 'x-dead-queue',
  /** The routing key a dead-lettered message was first published with. */
  originalRoutingKey: 'x-original-routing-key',
} as const;

/** Why a publish was refused. */
export type PublishFailure = 'disconnected' | 'nack' | 'unroutable' | 'timeout';

/** A publish the broker did not confirm: the caller still owns the message (keep it, retry later). */
export class PublishError extends Error {
  constructor(
    readonly failure: PublishFailure,
    message: string,
  ) {
    super(message);
    this.name = 'PublishError';
  }
}

/** Runs on a channel of its own after every (re)connect. A throw recycles the connection. */
export type ReadyHandler = (channel: Channel) => Promise<void>;

export interface PublishOptions {
  /** Extra headers; `x-request-id` is always set from the envelope. */
  headers?: Record<string, unknown>;
  /** Reject when no queue is bound for the routing key (default true). */
  mandatory?: boolean;
}

export interface RawPublishProperties extends Omit<Options.Publish, 'messageId' | 'mandatory'> {
  /** Required: the confirm and an unroutable return are matched by it. */
  messageId: string;
  mandatory?: boolean;
}

export interface AmqpOptions {
  /**
   * A broker URL, or a comma-separated list of them (the nodes of a cluster): each attempt to
   * connect takes the next one (see `brokerRotation`).
   */
  url: string;
  logger: Logger;
  /** Connection name shown by the broker (`rabbitmqctl list_connections client_properties`). */
  name: string;
  /** Back-off between connection attempts: doubles from `min` up to `max` (ms), with jitter. */
  reconnectDelayMs?: { min: number; max: number };
  /** A publish without a confirm after this long is rejected with `timeout` (default 10 s). */
  publishTimeoutMs?: number;
  /** Heartbeat when the URL sets none (default 15 s), so a dead peer is noticed in ~30 s. */
  heartbeatSeconds?: number;
}

export interface AmqpClient {
  /** Starts connecting in the background; returns at once. */
  start(): void;
  /** Registers a handler for every future connection, and runs it now if connected. */
  onReady(handler: ReadyHandler): void;
  /**
   * Publishes an envelope: persistent, `application/json`, `messageId` = `envelope.id`,
   * `type` = `envelope.type`, `x-request-id` header. Resolves when the broker confirms; rejects
   * with a `PublishError` on nack, unroutable return (`mandatory`, the default), timeout, or
   * when not connected.
   */
  publish(exchange: string, routingKey: string, envelope: MessageEnvelope, options?: PublishOptions): Promise<void>;
  /** Like `publish` for a body that is not an envelope (dead-lettering an unreadable message). */
  publishRaw(exchange: string, routingKey: string, content: Buffer, properties: RawPublishProperties): Promise<void>;
  /** Connected, with every ready handler done. */
  isConnected(): boolean;
  /** Resolves once connected; rejects after `timeoutMs`. */
  waitUntilConnected(timeoutMs: number): Promise<void>;
  /** For `/ready`: fails while disconnected. */
  readiness: ReadinessCheck;
  /** Stops reconnecting and closes the connection (unacked deliveries go back to their queues). */
  stop(): Promise<void>;
}

interface PendingPublish {
  messageId: string;
  fail: (err: Error) => void;
}

/** Creates a connection manager. Nothing happens until `start()`. */
export function createAmqp(options: AmqpOptions): AmqpClient {
  const log = options.logger.child({ component: 'amqp', connection: options.name });
  const delays = options.reconnectDelayMs ?? { min: 250, max: 10_000 };
  const publishTimeoutMs = options.publishTimeoutMs ?? 10_000;
  const nodes = brokerRotation(
    parseBrokerUrls(options.url).map((url) => withDefaultHeartbeat(url, options.heartbeatSeconds ?? 15)),
  );
  const handlers: ReadyHandler[] = [];
  const pending = new Set<PendingPublish>();
  /** Unroutable returns not yet matched with their confirm, by message id. */
  const returned = new Map<string, number>();

  let started = false;
  let stopped = false;
  let model: ChannelModel | undefined;
  let confirmChannel: ConfirmChannel | undefined;
  let ready = false;
  let loop: Promise<void> | undefined;
  const wakeUp = new AbortController();
  let readyWaiters: Array<() => void> = [];
  const recycling = new WeakSet<ChannelModel>();
  let publishChannelError: string | undefined;
  /** Channels of the current connection, closed one by one on stop (see `stop`). */
  const openChannels = new Set<Channel>();

  function failPending(reason: string): void {
    for (const entry of pending) entry.fail(new PublishError('disconnected', reason));
  }

  /** Closes the current connection so the loop reconnects; safe to call many times. */
  function recycle(current: ChannelModel, why: string): void {
    if (model !== current || recycling.has(current)) return;
    recycling.add(current);
    ready = false;
    log.warn({ why }, 'recycling the broker connection');
    // If the connection is already going, its 'close' event does the rest.
    current.close().catch(() => undefined);
  }

  /** A channel whose death recycles the whole connection, so every handler starts again from a known state. */
  function watchChannel(current: ChannelModel, channel: Channel, what: string): void {
    openChannels.add(channel);
    channel.on('error', (err: Error) => log.warn({ err: err.message, channel: what }, 'channel error'));
    channel.on('close', () => {
      openChannels.delete(channel);
      if (model === current) ready = false;
      // Channels also close when their connection does; that case is the connection's to handle.
      setImmediate(() => {
        if (!stopped && model === current) recycle(current, `${what} channel closed`);
      });
    });
  }

  async function runHandler(current: ChannelModel, handler: ReadyHandler, index: number): Promise<void> {
    const channel = await current.createChannel();
    watchChannel(current, channel, `ready-handler-${index}`);
    await handler(channel);
  }

  async function connectOnce(url: string, broker: string): Promise<void> {
    const current = await amqp.connect(url, { timeout: 5_000, clientProperties: { connection_name: options.name } });
    if (stopped) {
      await current.close().catch(() => undefined);
      return;
    }
    model = current;
    const closed = new Promise<void>((resolve) => {
      current.on('close', (err?: Error) => {
        if (model === current) {
          model = undefined;
          confirmChannel = undefined;
          ready = false;
        }
        failPending('connection closed before the broker confirmed');
        if (!stopped) log.warn({ err: err?.message, broker }, 'broker connection closed');
        resolve();
      });
    });
    current.on('error', (err: Error) => log.warn({ err: err.message }, 'broker connection error'));
    current.on('blocked', (reason: string) => log.warn({ reason }, 'broker blocked publishing'));
    current.on('unblocked', () => log.info('broker unblocked publishing'));
    try {
      const confirm = await current.createConfirmChannel();
      publishChannelError = undefined;
      returned.clear();
      watchChannel(current, confirm, 'publish');
      // Kept to explain the rejections of the publishes the channel's death takes with it.
      confirm.on('error', (err: Error) => (publishChannelError = err.message));
      confirm.on('return', (msg: { properties: { messageId?: string } }) => {
        const id = msg.properties.messageId;
        if (id !== undefined) returned.set(id, (returned.get(id) ?? 0) + 1);
      });
      confirmChannel = confirm;
      for (const [index, handler] of handlers.entries()) await runHandler(current, handler, index);
      if (model !== current || stopped) throw new Error('connection closed while getting ready');
      ready = true;
      log.info({ broker }, 'connected to the broker');
      const waiters = readyWaiters;
      readyWaiters = [];
      for (const wake of waiters) wake();
    } catch (err) {
      log.warn({ err: (err as Error).message }, 'getting the broker connection ready failed');
      recycle(current, 'setup failed');
    }
    await closed;
  }

  async function run(): Promise<void> {
    let attempt = 0;
    while (!stopped) {
      const began = Date.now();
      const url = nodes.next();
      const broker = brokerAddress(url);
      try {
        await connectOnce(url, broker);
      } catch (err) {
        log.warn({ err: (err as Error).message, attempt: attempt + 1, broker }, 'cannot connect to the broker');
      }
      if (stopped) break;
      // A connection that lived a while earns a fresh back-off; a flapping one keeps growing it.
      attempt = Date.now() - began > 30_000 ? 0 : attempt + 1;
      // The back-off grows once per round of the list, so every node is tried soon after a loss.
      const rounds = Math.floor(attempt / nodes.size);
      const base = Math.min(delays.max, delays.min * 2 ** Math.min(rounds, 20));
      const delay = Math.round(base * (0.8 + Math.random() * 0.4));
      log.debug({ delay, attempt }, 'reconnecting after a pause');
      await sleep(delay, undefined, { signal: wakeUp.signal }).catch(() => undefined);
    }
  }

  function publishRaw(exchange: string, routingKey: string, content: Buffer, properties: RawPublishProperties): Promise<void> {
    const channel = confirmChannel;
    if (!ready || !channel) return Promise.reject(new PublishError('disconnected', 'not connected to the broker'));
    const { messageId } = properties;
    return new Promise<void>((resolve, reject) => {
      const entry: PendingPublish = {
        messageId,
        fail: (err) => finish(err),
      };
      const timer = setTimeout(
        () => finish(new PublishError('timeout', `no confirm from the broker within ${publishTimeoutMs} ms`)),
        publishTimeoutMs,
      );
      function finish(err?: Error): void {
        if (!pending.delete(entry)) return;
        clearTimeout(timer);
        if (err) reject(err);
        else resolve();
      }
      pending.add(entry);
      try {
        channel.publish(
          exchange,
          routingKey,
          content,
          { persistent: true, ...properties, mandatory: properties.mandatory ?? true },
          (err: unknown) => {
            if (takeReturned(messageId))
              return finish(new PublishError('unroutable', `no queue is bound to ${exchange || '(default)'} for ${routingKey}`));
            if (!err) return finish();
            if (describe(err) === 'message nacked') return finish(new PublishError('nack', 'the broker refused the message (nack)'));
            finish(
              new PublishError('disconnected', `the channel closed before the broker confirmed: ${publishChannelError ?? describe(err)}`),
            );
          },
        );
      } catch (err) {
        finish(new PublishError('disconnected', `publish failed: ${describe(err)}`));
      }
    });
  }

  function takeReturned(messageId: string): boolean {
    const count = returned.get(messageId);
    if (!count) return false;
    if (count === 1) returned.delete(messageId);
    else returned.set(messageId, count - 1);
    return true;
  }

  return {
    start() {
      if (started) return;
      started = true;
      loop = run();
    },

    onReady(handler) {
      handlers.push(handler);
      const current = model;
      if (ready && current) {
        runHandler(current, handler, handlers.length - 1).catch((err: Error) => {
          log.warn({ err: err.message }, 'ready handler failed');
          recycle(current, 'ready handler failed');
        });
      }
    },

    publish(exchange, routingKey, envelope, publishOptions = {}) {
      return publishRaw(exchange, routingKey, Buffer.from(JSON.stringify(envelope)), {
        messageId: envelope.id,
        type: envelope.type,
        contentType: 'application/json',
        contentEncoding: 'utf-8',
        timestamp: Math.floor(Date.parse(envelope.occurredAt) / 1000) || undefined,
        appId: options.name,
        mandatory: publishOptions.mandatory,
        headers: { ...publishOptions.headers, [MESSAGE_HEADERS.requestId]: envelope.requestId },
      });
    },

    publishRaw,

    isConnected: () => ready,

    waitUntilConnected(timeoutMs) {
      if (ready) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          readyWaiters = readyWaiters.filter((w) => w !== wake);
          reject(new Error(`not connected to the broker within ${timeoutMs} ms`));
        }, timeoutMs);
        const wake = () => {
          clearTimeout(timer);
          resolve();
        };
        readyWaiters.push(wake);
      });
    },

    readiness: {
      name: 'rabbitmq',
      check: async () => {
        if (!ready) throw new Error('not connected to the broker');
      },
    },

    async stop() {
      if (stopped) return;
      stopped = true;
      ready = false;
      wakeUp.abort();
      const current = model;
      model = undefined;
      confirmChannel = undefined;
      failPending('stopping');
      // Channels first: amqplib may put the connection's Close ahead of frames still queued on
      // other channels, and the broker then drops them — an ack sent just before stop() would be
      // lost and its message redelivered. A channel's own Close comes after its frames.
      await Promise.all([...openChannels].map((channel) => channel.close().catch(() => undefined)));
      if (current) await current.close().catch(() => undefined);
      await loop;
      log.info('broker connection closed');
    },
  };
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Adds `heartbeat=<seconds>` to the URL unless it sets one. */
function withDefaultHeartbeat(url: string, seconds: number): string {
  try {
    const parsed = new URL(url);
    if (!parsed.searchParams.has('heartbeat')) parsed.searchParams.set('heartbeat', String(seconds));
    return parsed.toString();
  } catch {
    return url;
  }
}
