import { createLogger, loadConfig, type Logger } from '@restgate/shared';
import { TEST_PRINCIPAL_SECRET } from '@restgate/shared/testing';
import type { Express } from 'express';
import { createApp } from '../../src/app';
import { gatewayConfigSchema, type GatewayConfig } from '../../src/config';
import { createAgents, destroyAgents } from '../../src/proxy';
import { TEST_JWT_SECRET, TEST_MASTER_KEY } from './tokens';

export interface TestGateway {
  app: Express;
  config: GatewayConfig;
  close(): void;
}

/**
 * The gateway app as start.ts builds it, from an environment like the real one. Serve it with
 * supertest (`request(gateway.app)`); `close()` drops the keep-alive pools.
 */
export function startGateway(
  env: Record<string, string>,
  logger: Logger = createLogger({ name: 'gateway', level: 'silent' }),
): TestGateway {
  const config = loadConfig(gatewayConfigSchema, {
    NODE_ENV: 'test',
    PORT: '0',
    PRINCIPAL_SECRET: TEST_PRINCIPAL_SECRET,
    MASTER_KEY: TEST_MASTER_KEY,
    JWT_SECRET: TEST_JWT_SECRET,
    REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    ...env,
  });
  const agents = createAgents(config);
  return { app: createApp({ config, logger, agents }), config, close: () => destroyAgents(agents) };
}
