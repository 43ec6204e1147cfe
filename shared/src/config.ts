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
    .description(
      'On SIGTERM, how long in-flight requests (and, in the mailer, messages) may take to finish before they are cut off, in ms.',
    ),
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

/**
 * A service's own config keys, each with its joi schema, checked against its config type: a key the
 * type lacks, or a key of the type without a schema, is a compile error. `Inherited` are the keys
 * the service takes from elsewhere (baseConfigSchema, shared key sets) and does not list here.
 */
export type ConfigKeys<Config, Inherited extends keyof Config = never> = {
  [Key in Exclude<keyof Config, Inherited> as Key extends string ? (string extends Key ? never : Key) : never]-?: Joi.Schema;
} & { [Key in Inherited]?: Joi.Schema };

/**
 * The user tokens' keys: identity signs tokens, the gateway verifies them, and both read these
 * from one definition, so the two can't disagree on what a token is.
 */
export const userTokenConfigKeys = {
  JWT_SECRET: Joi.string()
    .min(32)
    .required()
    .invalid(Joi.ref('PRINCIPAL_SECRET'))
    .messages({ 'any.invalid': '{{#label}} must differ from PRINCIPAL_SECRET' })
    .description('HS256 key of user tokens: identity signs them, the gateway verifies them (not PRINCIPAL_SECRET).'),
  JWT_ISSUER: Joi.string().default('restgate').description('`iss` of user tokens: identity writes it, the gateway requires it.'),
  JWT_AUDIENCE: Joi.string().default('restgate-api').description('`aud` of user tokens: identity writes it, the gateway requires it.'),
  JWT_TTL_SECONDS: Joi.number()
    .integer()
    .min(60)
    .max(86_400)
    .default(900)
    .description(
      'Lifetime of an access token, in seconds: identity issues tokens for this long (and remembers an ended session in Redis as long); the gateway refuses a token with a longer `exp − iat`, or issued longer ago. Give both the same value.',
    ),
} satisfies ConfigKeys<UserTokenConfig>;

export interface UserTokenConfig {
  JWT_SECRET: string;
  JWT_ISSUER: string;
  JWT_AUDIENCE: string;
  JWT_TTL_SECONDS: number;
}
