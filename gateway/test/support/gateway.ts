import { createLogger, loadConfig, type Logger } from '@restgate/shared';
import { TEST_PRINCIPAL_SECRET } from '@restgate/shared/testing';
import { createApp, type GatewayApp } from '../../src/app';
import { gatewayConfigSchema, type GatewayConfig } from '../../src/config';
import type { PolicyRow } from '../../src/policy';
import { createAgents, destroyAgents, upstreamUrls } from '../../src/proxy';
import { POLICY_ROWS, ROUTED_SERVICES } from './routes';
import { TEST_JWT_SECRET, TEST_MASTER_KEY } from './tokens';

export interface TestGateway {
  app: GatewayApp;
  config: GatewayConfig;
  close(): void;
}

/**
 * The gateway app as start.ts builds it, from an environment like the real one and the services'
 * route specs (or `routes`). Serve it with supertest (`request(gateway.app)`); `close()` drops the
 * keep-alive pools.
 */
export function startGateway(
  env: Record<string, string>,
  logger: Logger = createLogger({ name: 'gateway', level: 'silent' }),
  routes: readonly PolicyRow[] = POLICY_ROWS,
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
  const upstreams = upstreamUrls(config, ROUTED_SERVICES);
  const agents = createAgents(config, upstreams);
  return { app: createApp({ config, logger, routes, upstreams, agents }), config, close: () => void destroyAgents(agents) };
}
