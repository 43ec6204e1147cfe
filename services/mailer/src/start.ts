import { runService } from '@restgate/shared';
import { configSchema, type MailerConfig } from './config';
import { createMailer } from './mailer';

const NAME = 'mailer';

void runService<MailerConfig>({
  name: NAME,
  schema: configSchema,
  // Its port serves /health, /ready and /metrics only: its consumers stop without waiting for DRAIN_DELAY_MS.
  probesOnly: true,
  start: async (config, logger, { metrics }) => {
    const mailer = createMailer({ config, logger, metrics });
    mailer.start();
    return { app: mailer.app, stop: () => mailer.stop(config.SHUTDOWN_TIMEOUT_MS) };
  },
});
