import { runService } from '@restgate/shared';
import { createRedis, createRevocationList } from '@restgate/shared/limits';
import { createApp } from './app';
import { gatewayConfigSchema } from './config';
import { policyRowsFrom } from './policy';
import { createRealtime } from './realtime';
import { createAgents, destroyAgents, upstreamUrls } from './proxy';
import { readRegistry, routedServices } from './registry';
import { loadServiceApis } from './service-apis';

void runService({
  name: 'gateway',
  schema: gatewayConfigSchema,
  start: async (config, logger, { metrics }) => {
    const services = routedServices(readRegistry());
    // The services' own route specs, as built: a level is written once, in the service.
    const routes = policyRowsFrom(loadServiceApis(services));
    const upstreams = upstreamUrls(config, services);
    const agents = createAgents(config, upstreams);
    const redis = createRedis(config.REDIS_URL, logger);
    await redis.whenReady(5_000);
    // Ended sessions, kept in memory and fresh through Redis pub/sub (see shared/src/limits/revocations.ts).
    const revocations = createRevocationList({ redis: redis.client, prefix: config.REDIS_KEY_PREFIX, logger });
    await revocations.whenLoaded(5_000);
    // Event streams: the change events from the broker, through the window in Redis.
    const realtime = createRealtime({ config, logger, redis, services, revocations });
    await realtime?.start();
    return {
      app: createApp({ config, logger, routes, upstreams, agents, redis, revocations, realtime, metrics }),
      stop: async () => {
        await realtime?.stop();
        await destroyAgents(agents);
        await revocations.close();
        await redis.close();
      },
    };
  },
});
