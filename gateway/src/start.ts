import { runService } from '@restgate/shared';
import { createApp } from './app';
import { gatewayConfigSchema } from './config';
import { policyRowsFrom } from './policy';
import { createAgents, destroyAgents, upstreamUrls } from './proxy';
import { readRegistry, routedServices } from './registry';
import { loadServiceApis } from './service-apis';

void runService({
  name: 'gateway',
  schema: gatewayConfigSchema,
  start: async (config, logger) => {
    const services = routedServices(readRegistry());
    // The services' own route specs, as built: a level is written once, in the service.
    const routes = policyRowsFrom(loadServiceApis(services));
    const upstreams = upstreamUrls(config, services);
    const agents = createAgents(config, upstreams);
    return { app: createApp({ config, logger, routes, upstreams, agents }), stop: async () => destroyAgents(agents) };
  },
});
