import { runService } from '@restgate/shared';
import { createMongo, retryUntil } from '@restgate/shared/data';
import { createArticles } from './app';
import { configSchema, type ArticlesConfig } from './config';

const NAME = 'articles';
const INDEX_TIMEOUT_MS = 30_000;

void runService<ArticlesConfig>({
  name: NAME,
  schema: configSchema,
  start: async (config, logger) => {
    const mongo = createMongo(config.MONGODB_URL, config.MONGODB_DB, logger);
    const service = createArticles({ config, logger, mongo });
    // The database may come up after us: retry for a while, then fail the start loudly.
    await retryUntil(service.ensureIndexes, INDEX_TIMEOUT_MS, logger, 'creating indexes');
    return { app: service.app, stop: mongo.close };
  },
});
