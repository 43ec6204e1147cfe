import type { Express } from 'express';
import type { Logger, ReadinessCheck } from '@restgate/shared';
import { applyPolicy, createHttpApp, type RouteDef } from '@restgate/shared/http';
import type { MongoHandle } from '@restgate/shared/data';
import type { AmqpClient } from '@restgate/shared/messaging';
import { ChangeOutbox, createChangeRelay, eventsExchangeName, type ChangeRelay } from '@restgate/shared/resource';
import type { ArticlesConfig } from './config';
import { createArticleRepository } from './data/article.repository';
import type { ArticleRepository } from './domain/article.model';
import { articleGuard } from './domain/article.rules';
import { articleRoutes } from './http/article.routes';

export interface AppDeps {
  config: Pick<ArticlesConfig, 'PRINCIPAL_SECRET' | 'BODY_LIMIT' | 'ROUTE_POLICY'> & Partial<Pick<ArticlesConfig, 'NODE_ENV'>>;
  logger: Logger;
  articles: ArticleRepository;
  /** What `/ready` checks: the database. */
  readiness: ReadinessCheck[];
}

/** The articles HTTP app; connects nothing and listens nowhere. */
export function createApp(deps: AppDeps): Express {
  // The operator's overrides apply here, where the table is mounted, so tests see what production sees.
  const guard = articleGuard(deps.config.NODE_ENV === 'production');
  const routes = applyPolicy(articleRoutes({ articles: deps.articles, guard }), deps.config.ROUTE_POLICY) as RouteDef[];
  return createHttpApp({
    name: 'articles',
    logger: deps.logger,
    routes,
    principalSecret: deps.config.PRINCIPAL_SECRET,
    readiness: deps.readiness,
    bodyLimit: deps.config.BODY_LIMIT,
  });
}

export interface ArticlesDeps {
  config: AppDeps['config'] & Partial<Pick<ArticlesConfig, 'TOPOLOGY_PREFIX' | 'OUTBOX_POLL_MS'>>;
  logger: Logger;
  /** The database this service owns (opened, not necessarily reachable yet). */
  mongo: Pick<MongoHandle, 'db' | 'readiness'>;
  /**
   * The broker the change relay publishes to. Without one (tests of the HTTP app) every write
   * still records its event in the outbox, and nothing publishes it.
   */
  amqp?: AmqpClient;
}

/** The whole service wired from its dependencies, as start.ts and the tests use it. */
export function createArticles({ config, logger, mongo, amqp }: ArticlesDeps) {
  const outbox = new ChangeOutbox(mongo.db);
  let relay: ChangeRelay | undefined;
  const articles = createArticleRepository(mongo.db, config.PRINCIPAL_SECRET, { outbox, onChange: (entry) => relay?.offer(entry) });
  if (amqp) {
    relay = createChangeRelay({
      amqp,
      outbox,
      records: { [articles.collection.collectionName]: articles.collection },
      exchange: eventsExchangeName(config.TOPOLOGY_PREFIX),
      logger,
      pollMs: config.OUTBOX_POLL_MS ?? 2_000,
    });
  }
  // Not the broker: while it is away, writes go on and their events wait in the outbox.
  const app = createApp({ config, logger, articles, readiness: [mongo.readiness] });
  return {
    app,
    articles,
    outbox,
    ensureIndexes: async () => {
      await articles.ensureIndexes();
      await outbox.ensureIndexes();
    },
    /** Starts the relay and its broker connection (in the background, retrying). */
    start() {
      relay?.start();
      amqp?.start();
    },
    async stop() {
      await relay?.stop();
      await amqp?.stop();
    },
  };
}
