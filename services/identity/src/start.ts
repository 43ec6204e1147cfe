import { runService } from '@restgate/shared';
import { identityConfigSchema } from './config';
import { socialAppProblems } from './social/social-login';
import { createIdentity } from './identity';

void runService({
  name: 'identity',
  schema: identityConfigSchema,
  // A social provider without its app binding would take any other app's tokens.
  productionChecks: socialAppProblems,
  start: async (config, logger, { metrics }) => {
    const identity = createIdentity({ config, logger, metrics });
    await identity.whenReady();
    await identity.ensureIndexes();
    identity.start();
    return { app: identity.app, stop: () => identity.stop() };
  },
});
