import type { Express } from 'express';
import request from 'supertest';
import type { Collection, Db } from 'mongodb';
import { createLogger, type Principal } from '@restgate/shared';
import { createMongo } from '@restgate/shared/data';
import { createAmqp } from '@restgate/shared/messaging';
import { eventsExchangeName } from '@restgate/shared/resource';
import { asPrincipal, TEST_PRINCIPAL_SECRET, testMongoUrl, uniqueDbName, uniqueSuffix } from '@restgate/shared/testing';
import { createArticles, type AppDeps } from '../../src/app';
import { ARTICLES_COLLECTION } from '../../src/data/article.repository';
import type { ArticleDoc } from './builders';

export interface TestService {
  app: Express;
  db: Db;
  /** The exchange the service's change events go to (with `events`), a name of this test's own. */
  eventsExchange: string;
  /** The collection behind the service, to arrange records and to check side effects. */
  articles: Collection<ArticleDoc>;
  stop: () => Promise<void>;
}

/**
 * The articles service on a database of its own (one per test file), wired by createArticles as
 * start.ts wires it. With `events`, its change relay publishes to the test's RabbitMQ (AMQP_URL,
 * set by jest's global setup) on an exchange of this test's own.
 */
export async function startArticles(config: Partial<AppDeps['config']> = {}, options: { events?: boolean } = {}): Promise<TestService> {
  const logger = createLogger({ name: 'articles-test', level: 'silent' });
  const mongo = createMongo(testMongoUrl(), uniqueDbName('articles'), logger);
  const prefix = `t${uniqueSuffix()}.`;
  const amqpUrl = process.env.AMQP_URL;
  if (options.events && !amqpUrl) throw new Error('AMQP_URL is not set: run the tests through jest (its global setup provisions RabbitMQ)');
  const amqp = options.events ? createAmqp({ name: 'articles-test', url: amqpUrl!, logger }) : undefined;
  const service = createArticles({
    config: { PRINCIPAL_SECRET: TEST_PRINCIPAL_SECRET, BODY_LIMIT: '100kb', ROUTE_POLICY: '', TOPOLOGY_PREFIX: prefix, OUTBOX_POLL_MS: 100, ...config },
    logger,
    mongo,
    amqp,
  });
  await service.ensureIndexes();
  service.start();
  if (amqp) await amqp.waitUntilConnected(10_000);
  return {
    app: service.app,
    db: mongo.db,
    eventsExchange: eventsExchangeName(prefix),
    articles: mongo.db.collection<ArticleDoc>(ARTICLES_COLLECTION),
    stop: async () => {
      await service.stop();
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
