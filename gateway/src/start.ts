import { runService } from '@restgate/shared';
import { createApp } from './app';
import { gatewayConfigSchema } from './config';
import { createAgents, destroyAgents } from './proxy';

void runService({
  name: 'gateway',
  schema: gatewayConfigSchema,
  start: async (config, logger) => {
    const agents = createAgents(config);
    return { app: createApp({ config, logger, agents }), stop: async () => destroyAgents(agents) };
  },
});
