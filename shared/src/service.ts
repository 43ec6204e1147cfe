import type { RequestListener } from 'node:http';
import type Joi from 'joi';
import { ConfigError, loadConfig, type BaseConfig } from './config';
import { createLogger, type Logger } from './logger';
import { createMetrics, type Metrics } from './metrics';
import { findUnsafeSettings } from './production-checks';
import { listen, stopOnSignals, type RunningServer } from './http/server';

export interface ServiceParts {
  app: RequestListener;
  /** Closes what the service opened (database, broker), after the HTTP server has stopped. */
  stop?: () => Promise<void>;
}

/** What `runService` hands to `start` besides config and logger. */
export interface ServiceContext {
  /**
   * The service's Prometheus series: register your own (`metrics.counter(…)`, `metrics.gauge(…)`)
   * and pass it to `createHttpApp({ metrics })`, which adds the HTTP series and serves `/metrics`.
   */
  metrics: Metrics;
}

/** Time `parts.stop` gets after the HTTP drain, on top of DRAIN_DELAY_MS and SHUTDOWN_TIMEOUT_MS each, before the process gives up. */
const STOP_MARGIN_MS = 5_000;

/**
 * The one entry point of every service: config → production checks → logger → parts → listen →
 * stop on signals. A bad config, or weak settings in production, exits 1 with every problem named.
 *
 * On SIGTERM or SIGINT: `/ready` turns 503; for DRAIN_DELAY_MS the server still serves (each answer
 * closing its connection) while load balancers notice; then it stops accepting, in-flight requests
 * finish (up to SHUTDOWN_TIMEOUT_MS), then `parts.stop` closes the rest (its own bound,
 * SHUTDOWN_TIMEOUT_MS by convention), and the process exits 0. A stop that takes longer than
 * DRAIN_DELAY_MS + 2 × SHUTDOWN_TIMEOUT_MS + 5 s exits 1.
 */
export async function runService<C extends BaseConfig>(options: {
  name: string;
  schema: Joi.ObjectSchema<C>;
  start: (config: C, logger: Logger, context: ServiceContext) => Promise<ServiceParts>;
  /** The service's own production checks (each problem a sentence), on top of the shared ones. */
  productionChecks?: (config: C) => string[];
  /**
   * The port serves only probes and metrics: no load balancer or gateway sends requests here, so
   * nothing needs DRAIN_DELAY_MS to stop sending, and the stop does not wait for it.
   */
  probesOnly?: boolean;
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
  if (config.NODE_ENV === 'production') {
    const problems = findUnsafeSettings(config, options.productionChecks);
    if (problems.length > 0) {
      logger.fatal({ problems }, `${options.name}: refusing to run in production with unsafe settings:\n  - ${problems.join('\n  - ')}`);
      process.exitCode = 1;
      return undefined;
    }
  }
  // A signal before the server listens (say, while the database is still awaited): nothing is
  // being served yet, so there is nothing to drain.
  const stopBeforeListening = (signal: NodeJS.Signals) => {
    logger.info({ signal }, 'stopped before listening');
    process.exit(0);
  };
  process.once('SIGINT', stopBeforeListening);
  process.once('SIGTERM', stopBeforeListening);
  const metrics = createMetrics();
  let parts: ServiceParts;
  let running: RunningServer;
  try {
    parts = await options.start(config, logger, { metrics });
    running = await listen(parts.app, config.PORT, config.HOST, {
      requestTimeoutMs: config.REQUEST_TIMEOUT_MS,
      maxConnections: config.MAX_CONNECTIONS,
    });
  } catch (err) {
    // Open clients (database, broker, worker pool) would keep a failed process alive: log once, exit.
    logger.fatal({ err }, `${options.name} failed to start`);
    process.exit(1);
  }
  process.off('SIGINT', stopBeforeListening);
  process.off('SIGTERM', stopBeforeListening);
  logger.info({ url: running.url }, `${options.name} listening on ${running.url}`);
  const drainDelayMs = options.probesOnly ? 0 : (config.DRAIN_DELAY_MS ?? 0);
  stopOnSignals(
    async () => {
      if (drainDelayMs > 0) logger.info({ drainDelayMs }, 'draining: /ready is 503, still serving until the delay ends');
      const cutOff = await running.stop(config.SHUTDOWN_TIMEOUT_MS, { drainDelayMs });
      if (cutOff > 0) logger.warn({ cutOff }, `${cutOff} request(s) still running after SHUTDOWN_TIMEOUT_MS were cut off`);
      await parts.stop?.();
    },
    logger,
    { timeoutMs: drainDelayMs + 2 * config.SHUTDOWN_TIMEOUT_MS + STOP_MARGIN_MS },
  );
  return running;
}
