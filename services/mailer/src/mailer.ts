import type { Express } from 'express';
import { createMetrics, type Logger, type Metrics } from '@restgate/shared';
import { createMongo, type MongoHandle } from '@restgate/shared/data';
import { createAmqp, type AmqpClient } from '@restgate/shared/messaging';
import { createMailConsumer, type MailEvent } from './amqp/mail.consumer';
import { mailTopology, type MailTopology } from './amqp/mail.topology';
import { createApp } from './app';
import type { MailerConfig } from './config';
import { createDeliveryRepository } from './data/delivery.repository';
import { deliverMail } from './domain/deliver-mail';
import type { MailSender } from './domain/mail.model';
import { createOutboxSender } from './mail/outbox.sender';
import { createSmtpSender } from './mail/smtp.sender';

export type MailerSettings = Pick<
  MailerConfig,
  | 'AMQP_URL'
  | 'MONGODB_URL'
  | 'MONGODB_DB'
  | 'SMTP_URL'
  | 'OUTBOX_DIR'
  | 'MAIL_FROM'
  | 'SMTP_POOL_SIZE'
  | 'RETRY_DELAYS_MS'
  | 'SENDING_LEASE_MS'
  | 'TOPOLOGY_PREFIX'
>;

/** What the mailer is built from: `start.ts` passes what `runService` gives it, tests their own. */
export interface MailerDeps {
  config: MailerSettings;
  logger: Logger;
  /** The process's series; the mailer adds its mail counters. A registry of its own by default. */
  metrics?: Metrics;
}

export interface Mailer {
  app: Express;
  amqp: AmqpClient;
  mongo: MongoHandle;
  sender: MailSender;
  topology: MailTopology;
  /** Connects to the broker (in the background, retrying) and starts consuming. */
  start(): void;
  /** Stops consuming, lets mails in progress finish (up to `timeoutMs`), then closes everything. */
  stop(timeoutMs: number): Promise<void>;
}

/** A send is abandoned well before its claim in the delivery log runs out, so two copies never send at once. */
const SEND_SHARE_OF_LEASE = 0.8;
/** Time left to settle (retry or dead-letter) the messages whose sends a stop cut short. */
const SETTLE_AFTER_ABORT_MS = 2_000;

/** Wires the mailer together. Nothing connects until `start()`. */
export function createMailer({ config, logger, metrics = createMetrics() }: MailerDeps): Mailer {
  const mongo = createMongo(config.MONGODB_URL, config.MONGODB_DB, logger);
  const deliveries = createDeliveryRepository(mongo.db);
  const sender = config.SMTP_URL
    ? createSmtpSender({
        url: config.SMTP_URL,
        from: config.MAIL_FROM,
        poolSize: config.SMTP_POOL_SIZE,
        sendTimeoutMs: Math.floor(config.SENDING_LEASE_MS * SEND_SHARE_OF_LEASE),
      })
    : createOutboxSender({ dir: config.OUTBOX_DIR, from: config.MAIL_FROM });
  const topology = mailTopology({ prefix: config.TOPOLOGY_PREFIX, retryDelaysMs: config.RETRY_DELAYS_MS });
  const amqp = createAmqp({ url: config.AMQP_URL, logger, name: 'mailer' });
  const consumer = createMailConsumer({
    amqp,
    topology,
    prefetch: config.SMTP_POOL_SIZE,
    logger,
    deliver: (message, log) => deliverMail(message, { deliveries, sender, leaseMs: config.SENDING_LEASE_MS, log }),
    observe: mailCounters(metrics),
  });
  const app = createApp({
    logger,
    metrics,
    readiness: [amqp.readiness, mongo.readiness, { name: sender.kind, check: () => sender.check() }],
  });

  return {
    app,
    amqp,
    mongo,
    sender,
    topology,

    start() {
      if (sender.kind === 'outbox') logger.info({ outbox: config.OUTBOX_DIR }, `no SMTP_URL: mails are written to ${config.OUTBOX_DIR}`);
      else logger.info({ smtp: smtpTarget(config.SMTP_URL) }, 'mails are sent over SMTP');
      consumer.start();
      amqp.start();
    },

    async stop(timeoutMs) {
      const left = await consumer.stop(timeoutMs);
      if (left > 0) {
        // Cut the stuck sends short: their messages get retried (or, if even that fails, redelivered).
        logger.warn({ inFlight: left }, 'mails still in progress: aborting them');
        sender.close({ force: true });
        await consumer.stop(SETTLE_AFTER_ABORT_MS);
      } else {
        sender.close();
      }
      await amqp.stop();
      await mongo.close();
    },
  };
}

/** mail_sent_total, mail_failed_total (a send that will be retried), mail_dead_lettered_total, mail_duplicates_skipped_total. */
function mailCounters(metrics: Metrics): (event: MailEvent) => void {
  const counters: Record<MailEvent, { inc(): void }> = {
    sent: metrics.counter({ name: 'mail_sent_total', help: 'Mails handed to the SMTP server (or written to the outbox folder).' }),
    failed: metrics.counter({ name: 'mail_failed_total', help: 'Sends that failed and were scheduled for a retry.' }),
    'dead-lettered': metrics.counter({ name: 'mail_dead_lettered_total', help: 'Messages moved to the dead-letter queue.' }),
    'skipped-duplicate': metrics.counter({
      name: 'mail_duplicates_skipped_total',
      help: 'Redelivered messages acknowledged without sending, because the delivery log had them.',
    }),
  };
  return (event) => counters[event].inc();
}

/** host:port of the SMTP URL, without credentials, for the logs. */
function smtpTarget(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}`;
  } catch {
    return '(unparsable SMTP_URL)';
  }
}
