import { createLogger, runService } from '@restgate/shared';
import { configSchema, type MailerConfig } from './config';
import { createMailer } from './mailer';

const NAME = 'mailer';

void runService<MailerConfig>({
  name: NAME,
  schema: configSchema,
  start: async (config, logger) => {
    const mailer = createMailer(config, logger);
    mailer.start();
    return { app: mailer.app, stop: () => mailer.stop(config.SHUTDOWN_TIMEOUT_MS) };
  },
}).catch((err: unknown) => {
  createLogger({ name: NAME }).fatal({ err }, `${NAME} failed to start`);
  process.exit(1);
});
