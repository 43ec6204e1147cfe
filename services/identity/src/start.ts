import { applyPolicy, createMongo, retryUntil, runService } from '@restgate/shared';
import { createApp } from './app';
import { identityConfigSchema } from './config';
import { UserRepository } from './data/user.repository';
import { createPasswordHasher } from './domain/password-hasher';
import { createSocialLogin } from './domain/social/social-login';
import { createTokenIssuer } from './domain/token-issuer';
import { identityRoutes } from './http/routes';
import { wireAbuseProtection } from './abuse.wiring';
import { wirePasswordResets } from './password-reset.wiring';

void runService({
  name: 'identity',
  schema: identityConfigSchema,
  start: async (config, logger, { metrics }) => {
    const mongo = createMongo(config.MONGODB_URL, config.MONGODB_DB, logger);
    const users = new UserRepository(mongo.db);
    await retryUntil(() => users.ensureIndexes(), 30_000, logger, 'creating indexes');
    const hasher = createPasswordHasher({ rounds: config.BCRYPT_ROUNDS, workers: config.HASH_WORKERS, maxQueue: config.HASH_QUEUE_MAX });
    const abuse = wireAbuseProtection({ config, logger, metrics, hasher });
    await abuse.redis.whenReady(5_000);
    const tokens = createTokenIssuer({
      secret: config.JWT_SECRET,
      issuer: config.JWT_ISSUER,
      audience: config.JWT_AUDIENCE,
      ttlSeconds: config.JWT_TTL_SECONDS,
    });
    const passwordResets = wirePasswordResets({ config, db: mongo.db, users, hasher, logger, mailCap: abuse.resetMailCap });
    await retryUntil(() => passwordResets.ensureIndexes(), 30_000, logger, 'creating password reset indexes');
    const routes = applyPolicy(
      identityRoutes(
        { users, hasher, tokens, backoff: abuse.backoff },
        { passwordMinLength: config.PASSWORD_MIN_LENGTH, social: createSocialLogin(config, logger), passwordResets: passwordResets.deps },
      ),
      config.ROUTE_POLICY,
    );
    // No broker in readiness: with RabbitMQ away, resets are still taken (the outbox keeps them).
    const app = createApp({ config, logger, routes, readiness: [mongo.readiness, abuse.redis.readiness], metrics });
    metrics.gauge({
      name: 'identity_outbox_pending',
      help: 'Password-reset mails waiting in the outbox for the broker.',
      async collect() {
        this.set(await passwordResets.relay.backlog());
      },
    });
    passwordResets.start();
    return {
      app,
      stop: async () => {
        await passwordResets.stop();
        await hasher.close();
        await abuse.close();
        await mongo.close();
      },
    };
  },
});
