import { createMetrics, type Logger, type Metrics } from '@restgate/shared';
import { applyPolicy } from '@restgate/shared/http';
import { createRateLimits, createRedis, type RedisHandle } from '@restgate/shared/limits';
import { createMongo, retryUntil, type MongoHandle } from '@restgate/shared/data';
import { createAmqp, type AmqpClient, type AmqpOptions } from '@restgate/shared/messaging';
import {
  AUDIT_RESOURCE,
  ChangeOutbox,
  createChangeRelay,
  eventsExchangeName,
  type ChangeRelay,
  type VersionedCollection,
} from '@restgate/shared/resource';
import type { Express } from 'express';
import { noAbuseLimits, wireAbuseProtection, type AbuseLimits } from './abuse.wiring';
import { mailExchangeName } from './outbox/mail-exchange';
import { createOutboxRelay, type OutboxRelay } from './outbox/outbox-relay';
import { createApp } from './app';
import type { IdentityConfig } from './config';
import { createPasswordHasher } from './accounts/password-hasher';
import { createTokenIssuer } from './accounts/token-issuer';
import { createRevocationRecorder } from './accounts/revocation.store';
import { MongoSecurityNoticeRepository } from './accounts/security-notice.repository';
import { OutboxRepository } from './outbox/outbox.repository';
import { MongoSessionRepository } from './accounts/session.repository';
import { MongoUserRepository } from './accounts/user.repository';
import type { AccountsDeps } from './accounts/accounts-deps';
import { accountRoutes } from './accounts/accounts.routes';
import { USER_FILTERS } from './accounts/user.schemas';
import { verificationMailer } from './emailed-links/email-verification';
import { wireEmailedLinks, type EmailedLinks } from './emailed-links/emailed-links.module';
import { createMfaModule } from './mfa/mfa.module';
import { createSocialModule } from './social/social.module';
import { SOCIAL_PROVIDER_NAMES } from './social/social-provider';
import { createHousekeeping, type Housekeeping } from './housekeeping';
import { createAuditTrail, type AuthEventType } from './audit/audit-trail';

/** What the identity service is built from: `start.ts` passes what `runService` gives it, tests their own. */
export interface IdentityWiring {
  config: IdentityConfig;
  logger: Logger;
  /** The process's series; identity adds its outbox backlog. A registry of its own by default. */
  metrics?: Metrics;
  /** Overrides for the broker connection (tests shorten the reconnect back-off). */
  amqpOptions?: Partial<Omit<AmqpOptions, 'url' | 'logger'>>;
  /**
   * The password back-off and the link mail caps, on Redis. On unless turned off: only tests of
   * something else turn it off, so that their many sign-ins from one address are not throttled.
   * (Ended sessions are recorded on Redis either way.)
   */
  abuseProtection?: boolean;
}

export interface Identity {
  app: Express;
  mongo: MongoHandle;
  /** What the use cases work with. */
  deps: AccountsDeps;
  /** Password resets and e-mail verifications: each purpose's use-case dependencies and token store. */
  links: EmailedLinks;
  /** The broker connection: the outbox relay publishes the links' mails over it. */
  amqp: AmqpClient;
  relay: OutboxRelay;
  outbox: OutboxRepository;
  /** The users.* change events: their outbox, and the relay that publishes them to the `events` exchange. */
  changes: ChangeOutbox;
  changeRelay: ChangeRelay;
  /** The periodic clean-up of expired rows (links, outbox leases, sessions). */
  housekeeping: Housekeeping;
  /** The connection that records ended sessions (and carries the abuse limits). */
  redis: RedisHandle;
  /** The back-off and the mail caps on Redis, unless turned off. */
  abuse?: AbuseLimits;
  /** Creates the indexes, retrying for up to `waitMs` while the database is not there yet. */
  ensureIndexes(waitMs?: number): Promise<void>;
  /** Waits (up to `waitMs`) for Redis. */
  whenReady(waitMs?: number): Promise<void>;
  /** Starts the outbox relay, its broker connection (in the background, retrying) and the periodic clean-up. */
  start(): void;
  /** Stops the clean-up, the relay and the broker connection, then the hashing workers and the database. */
  stop(): Promise<void>;
}

/**
 * Wires the identity service together: repositories, hasher, token issuer, social providers, the
 * e-mailed links, the broker and the outbox relay that publishes their mails, the periodic
 * clean-up, the route table with `ROUTE_POLICY` applied, the app.
 * Connects nothing and listens nowhere; `start.ts` and the tests call it the same way.
 */
export function createIdentity({
  config,
  logger,
  metrics = createMetrics(),
  amqpOptions,
  abuseProtection = true,
}: IdentityWiring): Identity {
  const mongo = createMongo(config.MONGODB_URL, config.MONGODB_DB, logger);
  const changes = new ChangeOutbox(mongo.db);
  const users = new MongoUserRepository(mongo.db, {
    cursorSecret: config.PRINCIPAL_SECRET,
    filters: USER_FILTERS,
    providerNames: SOCIAL_PROVIDER_NAMES,
    events: { outbox: changes, onChange: (entry) => changeRelay.offer(entry) },
  });
  const hasher = createPasswordHasher({
    argon2: { memoryKib: config.ARGON2_MEMORY_KIB, iterations: config.ARGON2_ITERATIONS, parallelism: config.ARGON2_PARALLELISM },
    workers: config.HASH_WORKERS,
    nice: config.HASH_WORKER_NICE,
    maxQueue: config.HASH_QUEUE_MAX,
    signInShare: config.HASH_SIGN_IN_SHARE / 100,
  });
  const redis = createRedis(config.REDIS_URL, logger);
  const rateLimits = createRateLimits({ redis: redis.client, logger, metrics, keyPrefix: `${config.REDIS_KEY_PREFIX}:identity` });
  const abuse = abuseProtection ? wireAbuseProtection({ config, metrics, hasher, limits: rateLimits }) : undefined;
  const limits = abuse ?? noAbuseLimits();
  const sessions = new MongoSessionRepository(mongo.db);
  // Remembered as long as the longest access token lives: past that, its tokens are dead anyway.
  const revocations = createRevocationRecorder(redis.client, config.REDIS_KEY_PREFIX, config.JWT_TTL_SECONDS);
  const tokens = createTokenIssuer({
    secret: config.JWT_SECRET,
    issuer: config.JWT_ISSUER,
    audience: config.JWT_AUDIENCE,
    ttlSeconds: config.JWT_TTL_SECONDS,
  });
  const notices = new MongoSecurityNoticeRepository(mongo.db);
  // Auth events share the change outbox and relay: one publisher of the `events` exchange.
  const audit = createAuditTrail<AuthEventType>({
    outbox: changes,
    enabled: config.AUDIT_EVENTS,
    offer: (entry) => changeRelay.offer(entry),
    logger,
  });
  const sessionSettings = { refreshTtlSeconds: config.REFRESH_TOKEN_TTL_SECONDS, reuseGraceSeconds: config.REFRESH_REUSE_GRACE_SECONDS };
  const core = {
    users,
    hasher,
    tokens,
    backoff: limits.backoff,
    sessions,
    revocations,
    sessionSettings,
    notices,
    noticeQueued: () => relay.wake(),
    audit,
  };
  const mfa = createMfaModule({
    db: mongo.db,
    core,
    limits: rateLimits,
    encryptionKey: config.MFA_ENCRYPTION_KEY,
    issuer: config.JWT_ISSUER,
  });
  const links = wireEmailedLinks({
    config,
    db: mongo.db,
    users,
    hasher,
    sessions: { sessions, revocations },
    mailCaps: limits.mailCaps,
    mailQueued: () => relay.wake(),
    afterReset: (user) => mfa.afterPasswordReset(user),
    audit,
    logger,
  });
  const amqp = createAmqp({ name: 'identity', ...amqpOptions, url: config.AMQP_URL, logger });
  const outbox = new OutboxRepository(mongo.db, [...links.repositories.map((r) => r.collection), notices.collection]);
  const relay = createOutboxRelay({
    amqp,
    outbox,
    exchange: mailExchangeName(config.TOPOLOGY_PREFIX),
    logger,
    pollMs: config.OUTBOX_POLL_MS,
  });
  // The users.* change events, on the same broker connection as the mail.
  const changeRelay = createChangeRelay({
    amqp,
    outbox: changes,
    records: { users: users.collection as unknown as VersionedCollection },
    standalone: [AUDIT_RESOURCE],
    exchange: eventsExchangeName(config.TOPOLOGY_PREFIX),
    logger,
    pollMs: config.OUTBOX_POLL_MS,
  });
  const housekeeping = createHousekeeping({
    logger,
    jobs: {
      ...Object.fromEntries(links.repositories.map((r) => [r.collection, () => r.deleteExpired(new Date())])),
      [notices.collection]: () => notices.deleteExpired(new Date()),
      outbox_leases: () => outbox.deleteExpiredLeases(),
      // Here rather than at sign-in, which would add a query to every sign-in.
      sessions: () => sessions.deleteExpired(new Date()),
    },
  });
  // The core, with its ports filled by the features composed here.
  const deps: AccountsDeps = {
    ...core,
    secondFactor: mfa.secondFactor,
    adminSignUp: config.ADMIN_SIGN_UP ?? (config.NODE_ENV === 'production' ? 'admin' : 'master'),
    resetTokens: links.passwordResets.links,
    requireVerifiedEmail: config.REQUIRE_VERIFIED_EMAIL,
    sendVerificationMail: verificationMailer(links.emailVerifications),
  };
  const apiOptions = { passwordMinLength: config.PASSWORD_MIN_LENGTH };
  const account = accountRoutes(deps, apiOptions);
  // The route table in the order the service mounts it (src/api.ts lists the same), before ROUTE_POLICY.
  const routes = applyPolicy(
    [
      ...account.auth,
      ...createSocialModule({ config, logger, core: deps }).routes,
      ...account.users,
      ...mfa.routes,
      ...links.routes(apiOptions),
    ],
    config.ROUTE_POLICY,
  );
  // No broker in readiness: with RabbitMQ away, resets are still taken (the outbox keeps them).
  const app = createApp({ config, logger, routes, readiness: [mongo.readiness, redis.readiness], metrics });
  metrics.gauge({
    name: 'identity_outbox_pending',
    help: 'Password-reset, e-mail verification and security notice mails waiting in the outbox for the broker.',
    async collect() {
      this.set(await relay.backlog());
    },
  });

  return {
    app,
    mongo,
    deps,
    links,
    amqp,
    relay,
    outbox,
    changeRelay,
    changes,
    housekeeping,
    redis,
    abuse,
    async ensureIndexes(waitMs = 30_000) {
      await retryUntil(() => users.ensureIndexes(), waitMs, logger, 'creating indexes');
      await retryUntil(() => sessions.ensureIndexes(), waitMs, logger, 'creating session indexes');
      await retryUntil(() => mfa.ensureIndexes(), waitMs, logger, 'creating MFA indexes');
      await retryUntil(() => notices.ensureIndexes(), waitMs, logger, 'creating security notice indexes');
      for (const repository of links.repositories) {
        const { ttl } = await retryUntil(() => repository.ensureIndexes(), waitMs, logger, `creating ${repository.collection} indexes`);
        if (repository.options.ttlIndex && !ttl) {
          logger.warn(
            `this MongoDB-compatible server has no TTL indexes (FerretDB): expired ${repository.collection} are removed by the periodic clean-up instead`,
          );
        }
      }
      await retryUntil(() => outbox.ensureIndexes(), waitMs, logger, 'creating outbox indexes');
      await retryUntil(() => changes.ensureIndexes(), waitMs, logger, 'creating change outbox indexes');
    },
    async whenReady(waitMs = 5_000) {
      await redis.whenReady(waitMs);
    },
    start() {
      relay.start();
      changeRelay.start();
      amqp.start();
      housekeeping.start();
    },
    async stop() {
      await housekeeping.stop();
      await relay.stop();
      await changeRelay.stop();
      await amqp.stop();
      await hasher.close();
      await redis.close();
      await mongo.close();
    },
  };
}
