import { runService } from '@restgate/shared';
import { createMongo, retryUntil } from '@restgate/shared/data';
import { createAmqp } from '@restgate/shared/messaging';
import { createAudit } from './app';
import { configSchema, type AuditConfig } from './config';

const NAME = 'audit';
const INDEX_TIMEOUT_MS = 30_000;

void runService<AuditConfig>({
  name: NAME,
  schema: configSchema,
  start: async (config, logger) => {
    const mongo = createMongo(config.MONGODB_URL, config.MONGODB_DB, logger);
    const amqp = createAmqp({ name: NAME, url: config.AMQP_URL, logger });
    const service = createAudit({ config, logger, mongo, amqp });
    // The database may come up after us: retry for a while, then fail the start loudly.
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
