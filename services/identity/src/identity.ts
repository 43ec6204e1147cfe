import { createMetrics, type Logger, type Metrics } from '@restgate/shared';
import { applyPolicy } from '@restgate/shared/http';
import { createRedis, type RedisHandle } from '@restgate/shared/limits';
import { createMongo, retryUntil, type MongoHandle } from '@restgate/shared/data';
import type { AmqpOptions } from '@restgate/shared/amqp';
import type { Express } from 'express';
import { wireAbuseProtection, type AbuseProtection } from './abuse.wiring';
import { createApp } from './app';
import type { IdentityConfig } from './config';
import { createPasswordHasher } from './crypto/password-hasher';
import { createTokenIssuer } from './crypto/token-issuer';
import { createRevocationRecorder } from './data/revocation.store';
import { MongoMfaRepository } from './data/mfa.repository';
import { MongoSessionRepository } from './data/session.repository';
import { createMfaCrypto } from './crypto/mfa-crypto';
import { MongoUserRepository } from './data/user.repository';
import type { IdentityDeps } from './domain/identity-deps';
import { queueVerificationMail } from './domain/request-email-verification';
import { createSocialLogin } from './domain/social/social-login';
import { identityRoutes } from './http/routes';
import { USER_FILTERS } from './http/user.schemas';
import { wireEmailVerifications, type EmailVerifications } from './email-verification.wiring';
import { wirePasswordResets, type PasswordResets } from './password-reset.wiring';

/** What the identity service is built from: `start.ts` passes what `runService` gives it, tests their own. */
export interface IdentityWiring {
  config: IdentityConfig;
  logger: Logger;
  /** The process's series; identity adds its outbox backlog. A registry of its own by default. */
  metrics?: Metrics;
  /** Overrides for the broker connection (tests shorten the reconnect back-off). */
  amqpOptions?: Partial<Omit<AmqpOptions, 'url' | 'logger'>>;
  /**
   * The password back-off and the reset-mail cap, on Redis. On unless turned off: only tests of
   * something else turn it off, so that their many sign-ins from one address are not throttled.
   * (Ended sessions are recorded on Redis either way.)
   */
  abuseProtection?: boolean;
}

export interface Identity {
  app: Express;
  mongo: MongoHandle;
  /** What the use cases work with. */
  deps: IdentityDeps;
  passwordResets: PasswordResets;
  /** Verification tokens and their relay (over the password resets' broker connection). */
  emailVerifications: EmailVerifications;
  /** The connection that records ended sessions (and carries the abuse limits). */
  redis: RedisHandle;
  /** The back-off and the reset-mail cap on Redis, unless turned off. */
  abuse?: AbuseProtection;
  /** Creates the indexes, retrying for up to `waitMs` while the database is not there yet. */
  ensureIndexes(waitMs?: number): Promise<void>;
  /** Waits (up to `waitMs`) for Redis. */
  whenReady(waitMs?: number): Promise<void>;
  /** Starts the outbox relay and its broker connection (in the background, retrying). */
  start(): void;
  /** Stops the relay and the broker connection, then the hashing workers and the database. */
  stop(): Promise<void>;
}

/**
 * Wires the identity service together: repositories, hasher, token issuer, social providers,
 * password resets and their outbox relay, the route table with `ROUTE_POLICY` applied, the app.
 * Connects nothing and listens nowhere; `start.ts` and the tests call it the same way.
 */
export function createIdentity({ config, logger, metrics = createMetrics(), amqpOptions, abuseProtection = true }: IdentityWiring): Identity {
  const mongo = createMongo(config.MONGODB_URL, config.MONGODB_DB, logger);
  const users = new MongoUserRepository(mongo.db, { cursorSecret: config.PRINCIPAL_SECRET, filters: USER_FILTERS });
  const hasher = createPasswordHasher({
    argon2: { memoryKib: config.ARGON2_MEMORY_KIB, iterations: config.ARGON2_ITERATIONS, parallelism: config.ARGON2_PARALLELISM },
    workers: config.HASH_WORKERS,
    nice: config.HASH_WORKER_NICE,
    maxQueue: config.HASH_QUEUE_MAX,
    signInShare: config.HASH_SIGN_IN_SHARE / 100,
  });
  const redis = createRedis(config.REDIS_URL, logger);
  const abuse = abuseProtection ? wireAbuseProtection({ config, logger, metrics, hasher, redis }) : undefined;
  const sessions = new MongoSessionRepository(mongo.db);
  // Remembered as long as the longest access token lives: past that, its tokens are dead anyway.
  const revocations = createRevocationRecorder(redis.client, config.REDIS_KEY_PREFIX, config.JWT_TTL_SECONDS);
  const tokens = createTokenIssuer({
    secret: config.JWT_SECRET,
    issuer: config.JWT_ISSUER,
    audience: config.JWT_AUDIENCE,
    ttlSeconds: config.JWT_TTL_SECONDS,
  });
  const passwordResets = wirePasswordResets({
    config,
    db: mongo.db,
    users,
    hasher,
    sessions: { sessions, revocations },
    logger,
    amqpOptions,
    mailCap: abuse?.resetMailCap,
  });
  const emailVerifications = wireEmailVerifications({
    config,
    db: mongo.db,
    users,
    amqp: passwordResets.amqp,
    logger,
    mailCap: abuse?.verificationMailCap,
  });
  const mfa = new MongoMfaRepository(mongo.db);
  const deps: IdentityDeps = {
    users,
    mfa,
    mfaCrypto: config.MFA_ENCRYPTION_KEY ? createMfaCrypto(config.MFA_ENCRYPTION_KEY, config.JWT_ISSUER) : undefined,
    hasher,
    tokens,
    backoff: abuse?.backoff,
    sessions,
    revocations,
    sessionSettings: { refreshTtlSeconds: config.REFRESH_TOKEN_TTL_SECONDS, reuseGraceSeconds: config.REFRESH_REUSE_GRACE_SECONDS },
    resetTokens: passwordResets.resets,
    requireVerifiedEmail: config.REQUIRE_VERIFIED_EMAIL,
    sendVerificationMail: (user, requestId, log) => queueVerificationMail(emailVerifications.deps, user, requestId, log),
  };
  const routes = applyPolicy(
    identityRoutes(deps, {
      passwordMinLength: config.PASSWORD_MIN_LENGTH,
      social: createSocialLogin(config, logger),
      passwordResets: passwordResets.deps,
      emailVerifications: emailVerifications.deps,
    }),
    config.ROUTE_POLICY,
  );
  // No broker in readiness: with RabbitMQ away, resets are still taken (the outbox keeps them).
  const app = createApp({ config, logger, routes, readiness: [mongo.readiness, redis.readiness], metrics });
  metrics.gauge({
    name: 'identity_outbox_pending',
    help: 'Password-reset and e-mail verification mails waiting in the outbox for the broker.',
    async collect() {
      const [resets, verifications] = await Promise.all([passwordResets.relay.backlog(), emailVerifications.relay.backlog()]);
      this.set(resets + verifications);
    },
  });

  return {
    app,
    mongo,
    deps,
    passwordResets,
    emailVerifications,
    redis,
    abuse,
    async ensureIndexes(waitMs = 30_000) {
      await retryUntil(() => users.ensureIndexes(), waitMs, logger, 'creating indexes');
      await retryUntil(() => sessions.ensureIndexes(), waitMs, logger, 'creating session indexes');
      await retryUntil(() => mfa.ensureIndexes(), waitMs, logger, 'creating MFA indexes');
      await retryUntil(() => passwordResets.ensureIndexes(), waitMs, logger, 'creating password reset indexes');
      await retryUntil(() => emailVerifications.ensureIndexes(), waitMs, logger, 'creating e-mail verification indexes');
    },
    async whenReady(waitMs = 5_000) {
      await redis.whenReady(waitMs);
    },
    start() {
      emailVerifications.start();
      passwordResets.start();
    },
    async stop() {
      await emailVerifications.stop();
      await passwordResets.stop();
      await hasher.close();
      await abuse?.close();
      await redis.close();
      await mongo.close();
    },
  };
}
