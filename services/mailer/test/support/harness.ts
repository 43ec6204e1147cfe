import { rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import amqplib, { type ConfirmChannel, type GetMessage, type Options } from 'amqplib';
import type { Collection } from 'mongodb';
import { createLogger, type Logger } from '@restgate/shared';
import { createMongo, type MongoHandle } from '@restgate/shared/data';
import { createAmqp, type AmqpClient } from '@restgate/shared/messaging';
import { testMongoUrl, uniqueDbName, uniqueSuffix } from '@restgate/shared/testing';
import { declareMailTopology, mailTopology, type MailTopology } from '../../src/amqp/mail.topology';
import { DELIVERIES_COLLECTION, type DeliveryDoc } from '../../src/data/delivery.repository';
import { createMailer, type Mailer, type MailerSettings } from '../../src/mailer';
import { eventually } from './eventually';

/** Short delays so a whole retry budget fits in a test. */
export const TEST_RETRY_DELAYS_MS = [150, 300];
export const ROUTING_KEY = 'mail.password-reset';

export const testLogger = createLogger({ name: 'mailer', level: process.env.TEST_LOG_LEVEL ?? 'silent' });

/** The RabbitMQ URL the jest global setup provisioned. */
export function testAmqpUrl(): string {
  const url = process.env.AMQP_URL;
  if (!url) throw new Error('AMQP_URL is not set: run the tests through jest (its global setup provisions RabbitMQ)');
  return url;
}

/**
 * Everything one test needs, with names no other test uses: a topology prefix, a database,
 * a publisher (the shared client, as the identity service uses it) and a plain amqplib
 * channel to look into queues. `cleanup()` removes it all.
 */
export interface MailerEnv {
  settings: MailerSettings;
  /** Starts a mailer with the env's settings (plus `overrides`) and waits until it consumes. */
  /** Starts a mailer on these settings; `logger` to read its lines (default: the silent test logger). */
  startMailer(overrides?: Partial<MailerSettings>, logger?: Logger): Promise<Mailer>;
  /** Publishes like the identity service does. */
  publisher: AmqpClient;
  topology: MailTopology;
  /** Declares the topology again, as the mailer does on every connect (after a test deleted a queue, say). */
  declareTopology(): Promise<void>;
  /** Publishes any bytes to the mail exchange (poison messages). */
  publishRaw(content: Buffer | string, properties?: Options.Publish): Promise<void>;
  /** Waits until `queue` has given `count` messages and returns them (acked). */
  take(queue: string, count: number, timeoutMs?: number): Promise<GetMessage[]>;
  /** `take` on the dead-letter queue. */
  takeDeadLetters(count: number, timeoutMs?: number): Promise<GetMessage[]>;
  /** Ready messages in a queue. */
  depth(queue: string): Promise<number>;
  deliveries: Collection<DeliveryDoc>;
  cleanup(): Promise<void>;
}

export async function aMailerEnv(overrides: Partial<MailerSettings> = {}): Promise<MailerEnv> {
  const settings: MailerSettings = {
    AMQP_URL: testAmqpUrl(),
    MONGODB_URL: testMongoUrl(),
    MONGODB_DB: uniqueDbName('mailer'),
    SMTP_URL: '',
    // Never the working directory: a test that forgets SMTP_URL writes here, and cleanup removes it.
    OUTBOX_DIR: path.join(os.tmpdir(), `restgate-mailer-outbox-${uniqueSuffix()}`),
    MAIL_FROM: 'restgate <no-reply@restgate.test>',
    SMTP_POOL_SIZE: 2,
    RETRY_DELAYS_MS: TEST_RETRY_DELAYS_MS,
    SENDING_LEASE_MS: 10_000,
    TOPOLOGY_PREFIX: `test.${uniqueSuffix()}.`,
    ...overrides,
  };
  const mailers: Mailer[] = [];
  const mongo: MongoHandle = createMongo(settings.MONGODB_URL, settings.MONGODB_DB, testLogger);
  const connection = await amqplib.connect(settings.AMQP_URL);
  connection.on('error', () => undefined);
  const channel: ConfirmChannel = await connection.createConfirmChannel();
  channel.on('error', () => undefined);
  // The same names the mailer computes from these settings.
  const topology = mailTopology({ prefix: settings.TOPOLOGY_PREFIX, retryDelaysMs: settings.RETRY_DELAYS_MS });
  await declareMailTopology(channel, topology);

  const publisher = createAmqp({ url: settings.AMQP_URL, logger: testLogger, name: 'test-publisher' });
  publisher.onReady((ch) => declareMailTopology(ch, topology));
  publisher.start();
  await publisher.waitUntilConnected(10_000);

  async function take(queue: string, count: number, timeoutMs = 10_000): Promise<GetMessage[]> {
    const taken: GetMessage[] = [];
    await eventually(
      async () => {
        const msg = await channel.get(queue, { noAck: true });
        if (msg) taken.push(msg);
        return taken.length >= count;
      },
      { timeoutMs, intervalMs: 20, what: `${count} message(s) in ${queue}` },
    );
    return taken;
  }

  return {
    settings,
    topology,
    publisher,
    deliveries: mongo.db.collection<DeliveryDoc>(DELIVERIES_COLLECTION),

    async startMailer(mailerOverrides = {}, logger: Logger = testLogger) {
      const mailer = createMailer({ config: { ...settings, ...mailerOverrides }, logger });
      mailers.push(mailer);
      mailer.start();
      await mailer.amqp.waitUntilConnected(10_000);
      return mailer;
    },

    declareTopology: () => declareMailTopology(channel, topology),

    async publishRaw(content, properties = {}) {
      channel.publish(topology.exchange, ROUTING_KEY, Buffer.from(content), { persistent: true, ...properties });
      await channel.waitForConfirms();
    },

    take,

    takeDeadLetters: (count, timeoutMs) => take(topology.deadQueue, count, timeoutMs),

    async depth(queue) {
      return (await channel.checkQueue(queue)).messageCount;
    },

    async cleanup() {
      await Promise.allSettled(mailers.map((m) => m.stop(1_000)));
      await publisher.stop();
      for (const queue of [topology.queue, topology.deadQueue, ...topology.retryQueues.map((r) => r.name)]) {
        await channel.deleteQueue(queue).catch(() => undefined);
      }
      await channel.deleteExchange(topology.exchange).catch(() => undefined);
      await connection.close().catch(() => undefined);
      await mongo.db.dropDatabase().catch(() => undefined);
      await rm(settings.OUTBOX_DIR, { recursive: true, force: true });
      await mongo.close();
    },
  };
}
