import { randomBytes } from 'node:crypto';
import { createLogger, createMetrics, loadConfig, type Metrics } from '@restgate/shared';
import { createRedis, type RedisHandle } from '@restgate/shared/limits';
import { TEST_PRINCIPAL_SECRET } from '@restgate/shared/testing';
import { createApp, type GatewayApp } from '../../src/app';
import { gatewayConfigSchema, type GatewayConfig } from '../../src/config';
import { createAgents, destroyAgents, upstreamUrls } from '../../src/proxy';
import { POLICY_ROWS, ROUTED_SERVICES } from './routes';
import { TEST_JWT_SECRET, TEST_MASTER_KEY } from './tokens';

export interface LimitedGateway {
  app: GatewayApp;
  config: GatewayConfig;
  metrics: Metrics;
  redis: RedisHandle;
  close(): Promise<void>;
}

/** A unique key prefix: gateways built with the same one share their counters, like replicas. */
export const aKeyPrefix = () => `test-gw-${randomBytes(5).toString('hex')}`;

/** The gateway as start.ts builds it, rate limits included, on the Redis of `REDIS_URL`. */
export async function startLimitedGateway(env: Record<string, string>): Promise<LimitedGateway> {
  const config = loadConfig(gatewayConfigSchema, {
    NODE_ENV: 'test',
    PORT: '0',
    PRINCIPAL_SECRET: TEST_PRINCIPAL_SECRET,
    MASTER_KEY: TEST_MASTER_KEY,
    JWT_SECRET: TEST_JWT_SECRET,
    REDIS_URL: process.env.REDIS_URL,
    ...env,
  });
  const logger = createLogger({ name: 'gateway', level: 'silent' });
  const upstreams = upstreamUrls(config, ROUTED_SERVICES);
  const agents = createAgents(config, upstreams);
  const redis = createRedis(config.REDIS_URL, logger);
  const metrics = createMetrics();
  await redis.whenReady(5_000);
  return {
    app: createApp({ config, logger, routes: POLICY_ROWS, upstreams, agents, redis, metrics }),
    config,
    metrics,
    redis,
    async close() {
      await destroyAgents(agents);
      await redis.close();
    },
  };
}

/** The value of one series in the Prometheus text, or 0 when it is absent. */
export async function seriesValue(metrics: Metrics, name: string, labels: string): Promise<number> {
  const text = await metrics.render();
  const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}}`));
  return line ? Number(line.split(' ').at(-1)) : 0;
}
