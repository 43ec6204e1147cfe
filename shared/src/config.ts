import Joi from 'joi';

/** Thrown at start when the environment does not satisfy a service's config schema. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

/** Keys every service and the gateway understand. Extend with `.keys({...})`. */
export const baseConfigSchema = Joi.object({
  NODE_ENV: Joi.string().valid('development', 'production', 'test').default('development').description('Runtime mode.'),
  HOST: Joi.string().default('127.0.0.1').description('Interface to listen on.'),
  PORT: Joi.number().port().required().description('Port to listen on.'),
  LOG_LEVEL: Joi.string()
    .valid('fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent')
    .default('info')
    .description('pino log level.'),
  PRINCIPAL_SECRET: Joi.string()
    .min(32)
    .required()
    .description('HMAC key for the principal header the gateway signs and the services verify (not JWT_SECRET).'),
  BODY_LIMIT: Joi.string().default('100kb').description('Largest accepted request body.'),
  ROUTE_POLICY: Joi.string()
    .allow('')
    .default('')
    .description('Overrides of the route policy table, e.g. "POST /users=public;GET /users=user".'),
  SHUTDOWN_TIMEOUT_MS: Joi.number()
    .integer()
    .min(0)
    .default(10_000)
    .description('On SIGTERM, how long in-flight requests (and, in the mailer, messages) may take to finish before they are cut off, in ms.'),
  DRAIN_DELAY_MS: Joi.number()
    .integer()
    .min(0)
    .max(60_000)
    .default(0)
    .description(
      'On SIGTERM, how long to keep serving before the stop begins, in ms: /ready answers 503 at once, but requests are still served, each answer closing its connection, so a load balancer or the gateway has time to stop sending here. 0: stop at once. The mailer, whose port serves only probes, does not wait.',
    ),
  REQUEST_TIMEOUT_MS: Joi.number()
    .integer()
    .min(1_000)
    .default(30_000)
    .description('A request whose headers and body take longer than this to arrive is cut off with a 408, in ms.'),
  MAX_CONNECTIONS: Joi.number()
    .integer()
    .min(1)
    .default(2_048)
    .description('Open connections this process accepts at once; more are refused until some close.'),
});

/**
 * Validates `env` against `schema` and returns the typed config. Fails with every bad key named.
 * Unknown keys are ignored, so one environment can feed every service.
 */
export function loadConfig<T>(schema: Joi.ObjectSchema<T>, env: NodeJS.ProcessEnv = process.env): T {
  const { value, error } = schema.validate(env, { abortEarly: false, allowUnknown: true, stripUnknown: true, convert: true });
  if (error) {
    throw new ConfigError(error.details.map((d) => `${d.path.join('.')}: ${d.message.replace(/"/g, '')}`));
  }
  return value;
}

export interface BaseConfig {
  NODE_ENV: 'development' | 'production' | 'test';
  HOST: string;
  PORT: number;
  LOG_LEVEL: string;
  PRINCIPAL_SECRET: string;
  BODY_LIMIT: string;
  ROUTE_POLICY: string;
  SHUTDOWN_TIMEOUT_MS: number;
  DRAIN_DELAY_MS?: number;
  REQUEST_TIMEOUT_MS?: number;
  MAX_CONNECTIONS?: number;
}
