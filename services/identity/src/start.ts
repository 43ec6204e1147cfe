import { runService } from '@restgate/shared';
import { identityConfigSchema } from './config';
import { createIdentity } from './identity';

void runService({
  name: 'identity',
  schema: identityConfigSchema,
  start: async (config, logger, { metrics }) => {
    const identity = createIdentity({ config, logger, metrics });
    await identity.whenReady();
    await identity.ensureIndexes();
    identity.start();
    return { app: identity.app, stop: () => identity.stop() };
  },
});
