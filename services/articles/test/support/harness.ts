import type { Express } from 'express';
import request from 'supertest';
import type { Collection, Db } from 'mongodb';
import { createLogger, type Principal } from '@restgate/shared';
import { createMongo } from '@restgate/shared/data';
import { asPrincipal, TEST_PRINCIPAL_SECRET, testMongoUrl, uniqueDbName } from '@restgate/shared/testing';
import { createArticles, type AppDeps } from '../../src/app';
import { ARTICLES_COLLECTION } from '../../src/data/article.repository';
import type { ArticleDoc } from './builders';

export interface TestService {
  app: Express;
  db: Db;
  /** The collection behind the service, to arrange records and to check side effects. */
  articles: Collection<ArticleDoc>;
  stop: () => Promise<void>;
}

/** The articles service on a database of its own (one per test file), wired by createArticles as start.ts wires it. */
export async function startArticles(config: Partial<AppDeps['config']> = {}): Promise<TestService> {
  const logger = createLogger({ name: 'articles-test', level: 'silent' });
  const mongo = createMongo(testMongoUrl(), uniqueDbName('articles'), logger);
  const service = createArticles({
    config: { PRINCIPAL_SECRET: TEST_PRINCIPAL_SECRET, BODY_LIMIT: '100kb', ROUTE_POLICY: '', ...config },
    logger,
    mongo,
  });
  await service.ensureIndexes();
  return {
    app: service.app,
    db: mongo.db,
    articles: mongo.db.collection<ArticleDoc>(ARTICLES_COLLECTION),
    stop: async () => {
      await mongo.db.dropDatabase();
      await mongo.close();
    },
  };
}

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** A request as the gateway would forward it: with `principal` signed for this method and path. */
export function call(app: Express, method: Method, path: string, principal?: Principal): request.Test {
  const req = request(app)[method](path);
  return principal ? req.set(asPrincipal(principal, method, path)) : req;
}

/** `Link` header → `{ first: URL, prev: URL, … }`. */
export function parseLinks(header: string | undefined): Record<string, URL> {
  const links: Record<string, URL> = {};
  for (const part of (header ?? '').split(',')) {
    const match = /<([^>]*)>;\s*rel="([^"]+)"/.exec(part.trim());
    if (match) links[match[2]!] = new URL(match[1]!, 'http://service.test');
  }
  return links;
}
