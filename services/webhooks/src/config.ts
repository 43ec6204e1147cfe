import Joi from 'joi';
import { baseConfigSchema, type BaseConfig, type ConfigKeys } from '@restgate/shared';
import { brokerUrlList } from '@restgate/shared/messaging';
import { parseDuration } from './domain/durations';

export interface WebhooksConfig extends BaseConfig {
  MONGODB_URL: string;
  MONGODB_DB: string;
  AMQP_URL: string;
  TOPOLOGY_PREFIX: string;
  WEBHOOK_ENCRYPTION_KEY: string;
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: boolean;
  WEBHOOK_RETRY_SCHEDULE: number[];
  WEBHOOK_TIMEOUT_MS: number;
  WEBHOOK_MAX_IN_FLIGHT: number;
  WEBHOOK_DISABLE_AFTER_MS: number;
  WEBHOOK_LOG_RETENTION_MS: number;
  WEBHOOK_ROTATION_OVERLAP_MS: number;
  WEBHOOK_POLL_MS: number;
}

/** "5s,5m,30m,2h" → [5000, 300000, 1800000, 7200000]: each a positive duration (ms, s, m, h, d). */
const schedule = Joi.custom((value: unknown, helpers) => {
  const parts = Array.isArray(value) ? value.map(String) : String(value).split(',');
  const delays = parts.map((part) => parseDuration(part.trim()));
  return delays.length > 0 && delays.length <= 20 && delays.every((d) => d !== null && d > 0 && d <= 7 * 86_400_000)
    ? delays
    : helpers.message({ custom: 'must be a comma-separated list of 1 to 20 delays such as "5s,5m,30m,2h", each at most 7d' });
});

const duration = (fallback: string) =>
  Joi.custom((value: unknown, helpers) => {
    const ms = typeof value === 'number' ? value : parseDuration(String(value).trim());
    return ms !== null && ms > 0 ? ms : helpers.message({ custom: 'must be a duration such as "500ms", "30s", "5m", "2h" or "5d"' });
  }).default(parseDuration(fallback));

/** The webhooks service's own keys (checked against WebhooksConfig). */
const keys = {
  PORT: Joi.number().port().default(9004).description('Port to listen on.'),
  MONGODB_URL: Joi.string()
    .uri({ scheme: ['mongodb', 'mongodb+srv'] })
    .required()
    .description('MongoDB connection string (a MongoDB-compatible server such as FerretDB works too).'),
  MONGODB_DB: Joi.string().default('webhooks').description('Database this service owns: endpoints and the delivery log.'),
  AMQP_URL: brokerUrlList()
    .required()
    .description(
      "RabbitMQ URL, e.g. amqp://guest:guest@127.0.0.1:5672: where the change events come from (the `events` topic exchange, through this service's own durable queue). For a cluster, its nodes comma-separated.",
    ),
  TOPOLOGY_PREFIX: Joi.string()
    .pattern(/^[A-Za-z0-9._-]*$/)
    .allow('')
    .default('')
    .description("Prefix of the events exchange's and this service's queue's names (tests use one per file)."),
  WEBHOOK_ENCRYPTION_KEY: Joi.string()
    .min(32)
    .required()
    .invalid(Joi.ref('PRINCIPAL_SECRET'))
    .messages({ 'any.invalid': '{{#label}} must differ from PRINCIPAL_SECRET' })
    .description(
      "Key (32+ random characters) that encrypts the endpoints' signing secrets at rest. Keep it: under another key the stored secrets no longer open, and their endpoints' deliveries fail until each secret is rotated.",
    ),
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: Joi.boolean()
    .default(false)
    .description(
      'Allow endpoints whose address is loopback, private, link-local or otherwise not public (and plain http:// in production). Off: such a URL is refused when it is registered, and an address it resolves to later is refused when connecting. `npm start` turns it on for local development.',
    ),
  WEBHOOK_RETRY_SCHEDULE: schedule
    .default([5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000])
    .description(
      'The waits before each retry of a failed delivery, such as "5s,5m,30m,2h,5h,10h,10h" (the default); after the last, the delivery has failed for good (it can still be retried by hand).',
    ),
  WEBHOOK_TIMEOUT_MS: Joi.number()
    .integer()
    .min(100)
    .max(60_000)
    .default(10_000)
    .description('How long a delivery may take, connection and answer, in ms.'),
  WEBHOOK_MAX_IN_FLIGHT: Joi.number()
    .integer()
    .min(1)
    .max(100)
    .default(5)
    .description('Deliveries in flight at once to one endpoint, per replica of this service.'),
  WEBHOOK_DISABLE_AFTER_MS: duration('5d').description(
    'An endpoint whose every delivery has failed for this long, such as "5d" (the default), is disabled, with the reason shown on it.',
  ),
  WEBHOOK_LOG_RETENTION_MS: duration('30d').description('How long the delivery log keeps a settled delivery, such as "30d" (the default).'),
  WEBHOOK_ROTATION_OVERLAP_MS: duration('24h').description(
    'How long an endpoint\'s previous secret still signs after a rotation, such as "24h" (the default).',
  ),
  WEBHOOK_POLL_MS: Joi.number()
    .integer()
    .min(20)
    .max(60_000)
    .default(1_000)
    .description(
      "How often the dispatcher looks for deliveries that are due (retries, other replicas' leftovers); a new event wakes it at once.",
    ),
} satisfies ConfigKeys<WebhooksConfig, keyof BaseConfig>;

/** The webhooks service's environment: the common keys plus its own. */
export const configSchema = baseConfigSchema.keys(keys) as Joi.ObjectSchema<WebhooksConfig>;
