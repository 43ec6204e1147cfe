import type { Express } from 'express';
import type { Logger, ReadinessCheck } from '@restgate/shared';
import { applyPolicy, createHttpApp, type RouteDef } from '@restgate/shared/http';
import type { MongoHandle } from '@restgate/shared/data';
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
  config: AppDeps['config'];
  logger: Logger;
  /** The database this service owns (opened, not necessarily reachable yet). */
  mongo: Pick<MongoHandle, 'db' | 'readiness'>;
}

/** The whole service wired from its dependencies, as start.ts and the tests use it. */
export function createArticles({ config, logger, mongo }: ArticlesDeps) {
  const articles = createArticleRepository(mongo.db, config.PRINCIPAL_SECRET);
  const app = createApp({ config, logger, articles, readiness: [mongo.readiness] });
  return { app, articles, ensureIndexes: () => articles.ensureIndexes() };
}
