import { createRedis, runService } from '@restgate/shared';
import { createApp } from './app';
import { gatewayConfigSchema } from './config';
import { createAgents, destroyAgents } from './proxy';

void runService({
  name: 'gateway',
  schema: gatewayConfigSchema,
  start: async (config, logger, { metrics }) => {
    const agents = createAgents(config);
    const redis = createRedis(config.REDIS_URL, logger);
    await redis.whenReady(5_000);
    return {
      app: createApp({ config, logger, agents, redis, metrics }),
      stop: async () => {
        destroyAgents(agents);
        await redis.close();
      },
    };
  },
});
