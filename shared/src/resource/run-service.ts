import type { RequestListener } from 'node:http';
import type Joi from 'joi';
import type { BaseConfig } from '../config';
import { createMongo, retryUntil, type MongoHandle } from '../data/mongo';
import type { Logger } from '../logger';
import { createAmqp, type AmqpClient } from '../messaging/client';
import { runService } from '../service';

/** A service that owns a database and uses the broker, as its `create…` function returns it. */
export interface DatabaseService {
  app: RequestListener;
  ensureIndexes: () => Promise<unknown>;
  /** Starts its background work (relays, consumers, jobs). */
  start: () => void;
  /** Stops that work and its broker connection; the database is closed after it. */
  stop: () => Promise<void>;
}

type DatabaseConfig = BaseConfig & { MONGODB_URL: string; MONGODB_DB: string; AMQP_URL: string };

/** How long a start waits for the database to take the indexes before it fails loudly. */
const INDEX_TIMEOUT_MS = 30_000;

/**
 * `runService` for a service on its own database and the broker (articles, every generated
 * resource, webhooks, the audit log): connects both, creates the indexes (retrying while the
 * database comes up after the service), starts it; on stop, stops it and closes the database.
 */
export function runDatabaseService<C extends DatabaseConfig>(options: {
  name: string;
  schema: Joi.ObjectSchema<C>;
  create: (parts: { config: C; logger: Logger; mongo: MongoHandle; amqp: AmqpClient }) => DatabaseService;
}): ReturnType<typeof runService> {
  const { name } = options;
  return runService<C>({
    name,
    schema: options.schema,
    start: async (config, logger) => {
      const mongo = createMongo(config.MONGODB_URL, config.MONGODB_DB, logger);
      const amqp = createAmqp({ name, url: config.AMQP_URL, logger });
      const service = options.create({ config, logger, mongo, amqp });
      await retryUntil(service.ensureIndexes, INDEX_TIMEOUT_MS, logger, 'creating indexes');
      service.start();
      return {
        app: service.app,
        stop: async () => {
          await service.stop();
          await mongo.close();
        },
      };
    },
  });
}
