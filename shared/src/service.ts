import type { Express } from 'express';
import type Joi from 'joi';
import { ConfigError, loadConfig, type BaseConfig } from './config';
import { createLogger, type Logger } from './logger';
import { listen, stopOnSignals, type RunningServer } from './server';

export interface ServiceParts {
  app: Express;
  /** Closes what the service opened (database, broker), after the HTTP server has stopped. */
  stop?: () => Promise<void>;
}

/**
 * The one entry point of every service: config → logger → parts → listen → stop on signals.
 * A bad config exits 1 with every bad key named.
 */
export async function runService<C extends BaseConfig>(options: {
  name: string;
  schema: Joi.ObjectSchema<C>;
  start: (config: C, logger: Logger) => Promise<ServiceParts>;
}): Promise<RunningServer | undefined> {
  let config: C;
  try {
    config = loadConfig(options.schema);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    createLogger({ name: options.name }).fatal({ problems: err.problems }, `${options.name}: ${err.message}`);
    process.exitCode = 1;
    return undefined;
  }
  const logger = createLogger({ name: options.name, level: config.LOG_LEVEL });
  const parts = await options.start(config, logger);
  const running = await listen(parts.app, config.PORT, config.HOST);
  logger.info({ url: running.url }, `${options.name} listening on ${running.url}`);
  stopOnSignals(async () => {
    await running.stop(config.SHUTDOWN_TIMEOUT_MS);
    await parts.stop?.();
  }, logger);
  return running;
}
