import type { Logger } from '@restgate/shared';
import { createAmqp, type AmqpClient, type AmqpOptions } from '@restgate/shared/amqp';
import type { Db } from 'mongodb';
import { mailExchangeName } from './amqp/mail-exchange';
import { createOutboxRelay, type OutboxRelay } from './amqp/outbox-relay';
import type { IdentityConfig } from './config';
import { OutboxRepository } from './data/outbox.repository';
import { MongoPasswordResetRepository } from './data/password-reset.repository';
import type { UserRepository } from './domain/identity-deps';
import type { PasswordResetDeps } from './domain/password-reset';
import type { PasswordHasher } from './domain/password-hasher';
import type { ResetMailCap } from './domain/reset-mail-cap';
import type { SessionDeps } from './domain/sessions';

export type PasswordResetConfig = Pick<
  IdentityConfig,
  'AMQP_URL' | 'RESET_LINK_ORIGINS' | 'RESET_DEFAULT_PAGE' | 'RESET_TOKEN_TTL_SECONDS' | 'OUTBOX_POLL_MS' | 'TOPOLOGY_PREFIX'
>;

export interface PasswordResets {
  /** What the route table needs (`identityRoutes(…, { passwordResets: deps })`). */
  deps: PasswordResetDeps;
  amqp: AmqpClient;
  relay: OutboxRelay;
  resets: MongoPasswordResetRepository;
  outbox: OutboxRepository;
  /** Creates the indexes; logs (and carries on) when the server has no TTL indexes. */
  ensureIndexes(): Promise<void>;
  /** Connects to the broker (in the background, retrying) and starts the relay. */
  start(): void;
  /** Stops the relay, then the broker connection. */
  stop(): Promise<void>;
}

/**
 * Password resets wired together: repositories, the broker connection, the outbox relay, and the
 * use cases' dependencies. Connects nothing until `start()`; the HTTP side works without it
 * (requests are stored, and go out once the relay runs).
 */
export function wirePasswordResets(parts: {
  config: PasswordResetConfig;
  db: Db;
  users: UserRepository;
  hasher: PasswordHasher;
  /** A reset ends the user's sessions. */
  sessions: Pick<SessionDeps, 'sessions' | 'revocations'>;
  logger: Logger;
  /** Reset mails per e-mail address (abuse.wiring.ts). */
  mailCap?: ResetMailCap;
  /** Overrides for the broker connection (tests shorten the reconnect back-off). */
  amqpOptions?: Partial<Omit<AmqpOptions, 'url' | 'logger'>>;
}): PasswordResets {
  const { config, logger } = parts;
  const resets = new MongoPasswordResetRepository(parts.db);
  const outbox = new OutboxRepository(parts.db);
  const amqp = createAmqp({ name: 'identity', ...parts.amqpOptions, url: config.AMQP_URL, logger });
  const relay = createOutboxRelay({
    amqp,
    outbox,
    exchange: mailExchangeName(config.TOPOLOGY_PREFIX),
    logger,
    pollMs: config.OUTBOX_POLL_MS,
    cleanup: async () => {
      const now = new Date();
      const removed = await resets.deleteExpired(now);
      await outbox.deleteExpiredLeases(now);
      // Identity's one periodic job, so expired sessions go here too: sign-in never sweeps them,
      // which would add a query to every sign-in.
      return removed + (await parts.sessions.sessions.deleteExpired(now));
    },
  });
  const deps: PasswordResetDeps = {
    users: parts.users,
    resets,
    hasher: parts.hasher,
    sessions: parts.sessions,
    settings: {
      linkOrigins: config.RESET_LINK_ORIGINS,
      defaultPage: config.RESET_DEFAULT_PAGE,
      ttlSeconds: config.RESET_TOKEN_TTL_SECONDS,
    },
    mailQueued: () => relay.wake(),
    mailCap: parts.mailCap,
  };

  return {
    deps,
    amqp,
    relay,
    resets,
    outbox,
    async ensureIndexes() {
      const { ttl } = await resets.ensureIndexes();
      await outbox.ensureIndexes();
      if (!ttl) {
        logger.warn(
          'this MongoDB-compatible server has no TTL indexes (FerretDB): expired password resets are removed by the outbox relay instead',
        );
      }
    },
    start() {
      relay.start();
      amqp.start();
    },
    async stop() {
      await relay.stop();
      await amqp.stop();
    },
  };
}
