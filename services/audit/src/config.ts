import Joi from 'joi';
import { baseConfigSchema, type BaseConfig, type ConfigKeys } from '@restgate/shared';
import { brokerUrlList } from '@restgate/shared/messaging';

export interface AuditConfig extends BaseConfig {
  MONGODB_URL: string;
  MONGODB_DB: string;
  AMQP_URL: string;
  TOPOLOGY_PREFIX: string;
  AUDIT_RETENTION_DAYS: number;
}

/** The audit service's own keys (checked against AuditConfig). */
const keys = {
  PORT: Joi.number().port().default(9005).description('Port to listen on.'),
  MONGODB_URL: Joi.string()
    .uri({ scheme: ['mongodb', 'mongodb+srv'] })
    .required()
    .description('MongoDB connection string (a MongoDB-compatible server such as FerretDB works too).'),
  MONGODB_DB: Joi.string().default('audit').description('Database this service owns: the audit log.'),
  AMQP_URL: brokerUrlList()
    .required()
    .description(
      "RabbitMQ URL, such as amqp://guest:guest@127.0.0.1:5672: where the events come from (the `events` topic exchange, through this service's own durable queue). For a cluster, its nodes comma-separated.",
    ),
  TOPOLOGY_PREFIX: Joi.string()
    .pattern(/^[A-Za-z0-9._-]*$/)
    .allow('')
    .default('')
    .description("Prefix of the events exchange's and this service's queue's names (tests use one per file)."),
  AUDIT_RETENTION_DAYS: Joi.number()
    .integer()
    .min(1)
    .max(36_500)
    .default(365)
    .description(
      'How long the audit log keeps an event, in days. An hourly job removes older ones and records that it did (an `audit.retention.applied` event).',
    ),
} satisfies ConfigKeys<AuditConfig, keyof BaseConfig>;

/** The audit service's environment: the common keys plus its own. */
export const configSchema = baseConfigSchema.keys(keys) as Joi.ObjectSchema<AuditConfig>;
