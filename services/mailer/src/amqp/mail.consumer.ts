import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Channel, ConsumeMessage } from 'amqplib';
import type { Logger } from '@restgate/shared';
import { MESSAGE_HEADERS as H, validateMessage, type AmqpClient } from '@restgate/shared/messaging';
import type { DeliveryOutcome } from '../domain/deliver-mail';
import { MAIL_MESSAGE_SCHEMAS, type MailMessage } from '../domain/mail.messages';
import type { SentMail } from '../domain/mail.model';
import { isPermanentFailure } from '../errors';
import { declareMailTopology, type MailTopology } from './mail.topology';

export interface MailConsumerDeps {
  amqp: AmqpClient;
  topology: MailTopology;
  /** Unacked messages at once: the SMTP pool size, so no mail waits for a connection. */
  prefetch: number;
  deliver: (message: MailMessage, log: Logger) => Promise<DeliveryOutcome>;
  logger: Logger;
  /** Told how each message ended, for the metrics. */
  observe?: (event: MailEvent) => void;
}

export type MailEvent = 'sent' | 'skipped-duplicate' | 'failed' | 'dead-lettered';

export interface MailConsumer {
  /** Declares the topology and consumes, now and after every reconnect. */
  start(): void;
  /** Stops taking messages and waits up to `timeoutMs` for the ones in hand; returns how many are left. */
  stop(timeoutMs: number): Promise<number>;
}

/** Headers the broker manages; a copy we publish must not carry the original's. */
const BROKER_HEADERS = /^x-(death|first-death-|last-death-|delivery-count)/;
const WELL_FORMED_ID = /^[A-Za-z0-9._:-]{1,128}$/;
/** Before giving a message back after our own publish failed: no hot loop against a sick broker. */
const REQUEUE_PAUSE_MS = 1_000;

/**
 * Consumes the mail queue with manual acks. Every message ends in exactly one of: acked after a
 * send (or a recorded earlier send); republished to the next retry queue, then acked; published
 * to the dead-letter queue with the reason, then acked. Nothing is ever requeued straight back.
 */
export function createMailConsumer(deps: MailConsumerDeps): MailConsumer {
  const { topology, amqp } = deps;
  const inFlight = new Set<Promise<void>>();
  let stopping = false;
  let active: { channel: Channel; consumerTag: string } | undefined;

  async function consume(channel: Channel): Promise<void> {
    await declareMailTopology(channel, topology);
    if (stopping) return;
    await channel.prefetch(deps.prefetch);
    const { consumerTag } = await channel.consume(
      topology.queue,
      (msg) => {
        if (msg === null) {
          // The broker cancelled us (queue deleted?): a fresh connection declares and consumes again.
          deps.logger.warn({ queue: topology.queue }, 'consumer cancelled by the broker');
          channel.close().catch(() => undefined);
          return;
        }
        const work = handle(channel, msg).catch((err: unknown) => deps.logger.error({ err }, 'mail message handling failed'));
        inFlight.add(work);
        void work.finally(() => inFlight.delete(work));
      },
      { noAck: false },
    );
    if (stopping) {
      await channel.cancel(consumerTag);
      return;
    }
    active = { channel, consumerTag };
    deps.logger.info({ queue: topology.queue, prefetch: deps.prefetch }, 'consuming mail messages');
  }

  async function handle(channel: Channel, msg: ConsumeMessage): Promise<void> {
    const headers = msg.properties.headers ?? {};
    const attempts = toCount(headers[H.attempts]);
    const delivery = { attempts, redelivered: msg.fields.redelivered };

    const result = validateMessage(msg.content, msg.properties, MAIL_MESSAGE_SCHEMAS);
    if (!result.ok) {
      const requestId =
        typeof headers[H.requestId] === 'string' && WELL_FORMED_ID.test(headers[H.requestId]) ? headers[H.requestId] : undefined;
      const log = deps.logger.child({ requestId, messageId: msg.properties.messageId, ...delivery });
      await deadLetter(channel, msg, `invalid message: ${result.reason}`, attempts, log);
      return;
    }
    const message = result.message;
    const log = deps.logger.child({ requestId: message.requestId, messageId: message.id, type: message.type, ...delivery });

    let outcome: DeliveryOutcome;
    try {
      outcome = await deps.deliver(message, log);
    } catch (err) {
      const reason = (err as Error).message ?? String(err);
      if (isPermanentFailure(err)) await deadLetter(channel, msg, reason, attempts + 1, log);
      else await retryLater(channel, msg, attempts + 1, reason, log);
      return;
    }
    switch (outcome.status) {
      case 'sent':
        ack(channel, msg, log);
        deps.observe?.('sent');
        if (outcome.sent.location) logWritten(log, outcome.sent);
        else log.info({ response: outcome.sent.response }, 'mail sent');
        return;
      case 'already-sent':
        ack(channel, msg, log);
        deps.observe?.('skipped-duplicate');
        log.info('mail already sent for this message id: acknowledged without sending');
        return;
      case 'busy':
        // Not a failure, so it costs no attempt: look again after the shortest delay.
        await republish(channel, msg, topology.retryQueues[0]!.name, { [H.attempts]: attempts }, log);
        log.info('another copy of this message is being sent: checking again later');
        return;
    }
  }

  async function retryLater(channel: Channel, msg: ConsumeMessage, attempts: number, reason: string, log: Logger): Promise<void> {
    deps.observe?.('failed');
    const next = topology.retryQueues[attempts - 1];
    if (!next) {
      await deadLetter(channel, msg, `gave up after ${attempts} attempts: ${reason}`, attempts, log);
      return;
    }
    log.warn({ reason, retryInMs: next.delayMs }, 'mail not sent: retrying later');
    await republish(channel, msg, next.name, { [H.attempts]: attempts, [H.lastError]: reason.slice(0, 500) }, log);
  }

  async function deadLetter(channel: Channel, msg: ConsumeMessage, reason: string, attempts: number, log: Logger): Promise<void> {
    log.error({ reason }, 'mail message dead-lettered');
    deps.observe?.('dead-lettered');
    const headers = {
      [H.attempts]: attempts,
      [H.deadReason]: reason.slice(0, 1_000),
      [H.deadAt]: new Date().toISOString(),
      [H.deadQueue]: topology.queue,
    };
    try {
      await amqp.publishRaw('', topology.deadQueue, msg.content, {
        ...copiedProperties(msg, headers),
        messageId: msg.properties.messageId ?? randomUUID(),
      });
      ack(channel, msg, log);
    } catch (err) {
      // Rejecting without requeue still lands it in the dead-letter queue (the queue's own DLX),
      // with the broker's reason instead of ours: better than holding it or looping.
      log.error({ err: (err as Error).message }, 'could not publish to the dead-letter queue: rejecting the message instead');
      settle(() => channel.nack(msg, false, false), log);
    }
  }

  async function republish(
    channel: Channel,
    msg: ConsumeMessage,
    queue: string,
    extra: Record<string, unknown>,
    log: Logger,
  ): Promise<void> {
    try {
      await amqp.publishRaw('', queue, msg.content, {
        ...copiedProperties(msg, extra),
        messageId: msg.properties.messageId ?? randomUUID(),
      });
      ack(channel, msg, log);
    } catch (err) {
      // Our copy did not make it; give the original back (after a pause). The queue's delivery
      // limit dead-letters a message that keeps coming back.
      log.error({ err: (err as Error).message, queue }, 'could not schedule a retry: returning the message to the queue');
      await sleep(REQUEUE_PAUSE_MS);
      settle(() => channel.nack(msg, false, true), log);
    }
  }

  function ack(channel: Channel, msg: ConsumeMessage, log: Logger): void {
    settle(() => channel.ack(msg), log);
  }

  /** Acks go on the channel the message came from; if it has closed, the broker redelivers, and the delivery log skips. */
  function settle(action: () => void, log: Logger): void {
    try {
      action();
    } catch (err) {
      log.warn({ err: (err as Error).message }, 'channel closed before the message was settled: it will be redelivered');
    }
  }

  return {
    start() {
      amqp.onReady(consume);
    },

    async stop(timeoutMs) {
      stopping = true;
      const current = active;
      active = undefined;
      if (current) await current.channel.cancel(current.consumerTag).catch(() => undefined);
      if (inFlight.size > 0) {
        deps.logger.info({ inFlight: inFlight.size }, 'waiting for mails in progress');
        await Promise.race([Promise.allSettled([...inFlight]), sleep(timeoutMs)]);
      }
      return inFlight.size;
    },
  };
}

/** The properties and headers a retry or dead-letter copy keeps, plus `extra`. */
function copiedProperties(msg: ConsumeMessage, extra: Record<string, unknown>) {
  const original = msg.properties.headers ?? {};
  const headers: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(original)) if (!BROKER_HEADERS.test(key)) headers[key] = value;
  headers[H.originalRoutingKey] ??= msg.fields.routingKey;
  const p = msg.properties;
  return {
    contentType: p.contentType,
    contentEncoding: p.contentEncoding,
    type: p.type,
    timestamp: p.timestamp,
    appId: p.appId,
    correlationId: p.correlationId,
    headers: { ...headers, ...extra },
  };
}

function toCount(value: unknown): number {
  const n = typeof value === 'number' ? value : Number(value);
  return Number.isInteger(n) && n >= 0 ? n : 0;
}

/**
 * Outbox mode (the local stack, no SMTP server): one line with the recipient, subject and links,
 * so a developer finds their reset link in the mailer's log without decoding the .eml.
 */
function logWritten(log: Logger, sent: SentMail): void {
  const { location, preview } = sent;
  const links = preview?.links.length ? `: ${preview.links.join(' ')}` : '';
  log.info({ location, ...preview }, `mail to ${preview?.to ?? '?'} ("${preview?.subject ?? ''}") written to ${location}${links}`);
}
