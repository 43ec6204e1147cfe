import type { Logger } from '@restgate/shared';
import type { AmqpClient } from '@restgate/shared/amqp';
import type { Db } from 'mongodb';
import { mailExchangeName } from './amqp/mail-exchange';
import { createOutboxRelay, type OutboxRelay } from './amqp/outbox-relay';
import type { IdentityConfig } from './config';
import { EMAIL_VERIFICATIONS_COLLECTION, MongoEmailVerificationRepository } from './data/email-verification.repository';
import { OutboxRepository } from './data/outbox.repository';
import type { EmailVerificationDeps } from './domain/email-verification';
import type { UserRepository } from './domain/identity-deps';
import type { ResetMailCap } from './domain/reset-mail-cap';

export interface EmailVerifications {
  deps: EmailVerificationDeps;
  relay: OutboxRelay;
  verifications: MongoEmailVerificationRepository;
  outbox: OutboxRepository;
  ensureIndexes(): Promise<void>;
  /** Starts the relay; the broker connection is the password resets' (started with them). */
  start(): void;
  /** Stops the relay (before the broker connection stops). */
  stop(): Promise<void>;
}

/**
 * E-mail verifications wired together: tokens with their mail requests in a collection of their
 * own, published by a relay of their own over the password resets' broker connection, so a
 * verification mail has the reset mail's guarantees (stored with its token, sent after a broker
 * outage, at least once, duplicates dropped by the mailer).
 */
export function wireEmailVerifications(parts: {
  config: Pick<IdentityConfig, 'EMAIL_VERIFICATION_PAGE' | 'OUTBOX_POLL_MS' | 'TOPOLOGY_PREFIX'>;
  db: Db;
  users: UserRepository;
  amqp: AmqpClient;
  logger: Logger;
  /** Requests for a new link per e-mail address (abuse.wiring.ts). */
  mailCap?: ResetMailCap;
}): EmailVerifications {
  const { config, logger } = parts;
  const verifications = new MongoEmailVerificationRepository(parts.db);
  const outbox = new OutboxRepository(parts.db, EMAIL_VERIFICATIONS_COLLECTION);
  const relay = createOutboxRelay({
    amqp: parts.amqp,
    outbox,
    exchange: mailExchangeName(config.TOPOLOGY_PREFIX),
    logger: logger.child({ outbox: EMAIL_VERIFICATIONS_COLLECTION }),
    pollMs: config.OUTBOX_POLL_MS,
    cleanup: () => verifications.deleteExpired(new Date()),
  });
  const deps: EmailVerificationDeps = {
    users: parts.users,
    verifications,
    page: config.EMAIL_VERIFICATION_PAGE,
    mailQueued: () => relay.wake(),
    mailCap: parts.mailCap,
    log: logger,
  };
  return {
    deps,
    relay,
    verifications,
    outbox,
    async ensureIndexes() {
      await verifications.ensureIndexes();
      await outbox.ensureIndexes();
    },
    start: () => relay.start(),
    stop: () => relay.stop(),
  };
}
