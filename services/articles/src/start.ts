import { createMongo, retryUntil, runService } from '@restgate/shared';
import { createApp } from './app';
import { configSchema, type ArticlesConfig } from './config';
import { createArticleRepository } from './data/article.repository';

const NAME = 'articles';
const INDEX_TIMEOUT_MS = 30_000;

void runService<ArticlesConfig>({
  name: NAME,
  schema: configSchema,
  start: async (config, logger) => {
    const mongo = createMongo(config.MONGODB_URL, config.MONGODB_DB, logger);
    const articles = createArticleRepository(mongo.db);
    // The database may come up after us: retry for a while, then fail the start loudly.
    await retryUntil(() => articles.ensureIndexes(), INDEX_TIMEOUT_MS, logger, 'creating indexes');
    return { app: createApp({ config, logger, articles, readiness: [mongo.readiness] }), stop: mongo.close };
  },
});
