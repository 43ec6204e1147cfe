import type { Express } from 'express';
import request from 'supertest';
import amqplib from 'amqplib';
import { ObjectId, type Db } from 'mongodb';
import { createLogger, type Principal } from '@restgate/shared';
import { createMongo } from '@restgate/shared/data';
import { createAmqp } from '@restgate/shared/messaging';
import { eventsExchangeName, type ChangeEvent } from '@restgate/shared/resource';
import { asPrincipal, TEST_PRINCIPAL_SECRET, testMongoUrl, uniqueDbName, uniqueSuffix } from '@restgate/shared/testing';
import { createWebhooks, type WebhooksAppConfig } from '../../src/app';

export const ADMIN: Principal = { kind: 'user', id: '5f0000000000000000000001', role: 'admin', amr: ['pwd', 'otp'] };
const USER_ID = '5f0000000000000000000002';
export const USER: Principal = { kind: 'user', id: USER_ID, role: 'user', amr: ['pwd'] };

export interface TestService {
  app: Express;
  db: Db;
  /** Publishes a change event as a service's relay would: persistent, to the test's own `events` exchange. */
  publish(event: ChangeEvent): Promise<void>;
  stop: () => Promise<void>;
}

/** Test settings: a short retry schedule, every address allowed (the receiver is on loopback). */
export const TEST_CONFIG: WebhooksAppConfig = {
  PRINCIPAL_SECRET: TEST_PRINCIPAL_SECRET,
  BODY_LIMIT: '100kb',
  ROUTE_POLICY: '',
  NODE_ENV: 'test',
  TOPOLOGY_PREFIX: '',
  WEBHOOK_ENCRYPTION_KEY: 'webhooks-test-encryption-key-0123456789abcdef',
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: true,
  WEBHOOK_RETRY_SCHEDULE: [100, 100, 100],
  WEBHOOK_TIMEOUT_MS: 2_000,
  WEBHOOK_MAX_IN_FLIGHT: 5,
  WEBHOOK_DISABLE_AFTER_MS: 5 * 86_400_000,
  WEBHOOK_LOG_RETENTION_MS: 30 * 86_400_000,
  WEBHOOK_ROTATION_OVERLAP_MS: 86_400_000,
  WEBHOOK_POLL_MS: 50,
};

/**
 * The webhooks service on a database of its own, wired by createWebhooks as start.ts wires it,
 * consuming the test's RabbitMQ (AMQP_URL, set by jest's global setup) on an exchange of its own.
 */
export async function startWebhooks(config: Partial<WebhooksAppConfig> = {}): Promise<TestService> {
  const logger = createLogger({ name: 'webhooks-test', level: 'silent' });
  const mongo = createMongo(testMongoUrl(), uniqueDbName('webhooks'), logger);
  const prefix = `t${uniqueSuffix()}.`;
  const amqpUrl = process.env.AMQP_URL;
  if (!amqpUrl) throw new Error('AMQP_URL is not set: run the tests through jest (its global setup provisions RabbitMQ)');
  const amqp = createAmqp({ name: 'webhooks-test', url: amqpUrl, logger });
  const service = createWebhooks({ config: { ...TEST_CONFIG, TOPOLOGY_PREFIX: prefix, ...config }, logger, mongo, amqp });
  await service.ensureIndexes();
  service.start();
  await amqp.waitUntilConnected(10_000);
  const connection = await amqplib.connect(amqpUrl);
  const channel = await connection.createConfirmChannel();
  const exchange = eventsExchangeName(prefix);
  await channel.assertExchange(exchange, 'topic', { durable: true });
  return {
    app: service.app,
    db: mongo.db,
    async publish(event) {
      channel.publish(exchange, event.type, Buffer.from(JSON.stringify(event)), {
        persistent: true,
        messageId: event.id,
        contentType: 'application/json',
      });
      await channel.waitForConfirms();
    },
    stop: async () => {
      await connection.close();
      await service.stop();
      await amqp.stop().catch(() => undefined);
      await mongo.db.dropDatabase();
      await mongo.close();
    },
  };
}

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** A request as the gateway would forward it: with `principal` signed for this method and path. */
export function call(app: Express, method: Method, path: string, principal: Principal = ADMIN): request.Test {
  return request(app)
    [method](path)
    .set(asPrincipal(principal, method, path.split('?')[0]!));
}

let seq = 0;
/** A change event of an article as the articles relay publishes it. */
export function articleEvent(fields: Partial<ChangeEvent> & { recordId?: string } = {}): ChangeEvent {
  const recordId = fields.recordId ?? new ObjectId().toHexString();
  const version = fields.seq ?? ++seq;
  return {
    id: `${recordId}:${version}`,
    type: 'articles.created',
    resource: 'articles',
    recordId,
    seq: version,
    at: new Date().toISOString(),
    requestId: 'req-test',
    actor: { id: USER_ID, role: 'user' },
    record: {
      id: recordId,
      title: 'A title',
      content: 'Some content',
      userId: USER_ID,
      createdAt: new Date().toISOString(),
      updatedAt: new Date().toISOString(),
    },
    changed: [],
    ...fields,
  };
}
