import Joi from 'joi';
import { baseConfigSchema, type BaseConfig, type ConfigKeys } from '@restgate/shared';
import { brokerUrlList } from '@restgate/shared/messaging';

export interface ArticlesConfig extends BaseConfig {
  MONGODB_URL: string;
  MONGODB_DB: string;
  AMQP_URL: string;
  TOPOLOGY_PREFIX: string;
  OUTBOX_POLL_MS: number;
}

/** The articles service's own keys (checked against ArticlesConfig): its database and the broker its change events go to. */
const keys = {
  PORT: Joi.number().port().default(9002).description('Port to listen on.'),
  MONGODB_URL: Joi.string()
    .uri({ scheme: ['mongodb', 'mongodb+srv'] })
    .required()
    .description('MongoDB connection string (a MongoDB-compatible server such as FerretDB works too).'),
  MONGODB_DB: Joi.string().default('articles').description('Database this service owns.'),
  AMQP_URL: brokerUrlList()
    .required()
    .description(
      'RabbitMQ URL, e.g. amqp://guest:guest@127.0.0.1:5672: where the change relay publishes the change events (the `events` topic exchange). For a cluster, its nodes comma-separated. While the broker is away, writes go on and their events wait in the outbox.',
    ),
  TOPOLOGY_PREFIX: Joi.string()
    .pattern(/^[A-Za-z0-9._-]*$/)
    .allow('')
    .default('')
    .description("Prefix of the events exchange's name (tests use one per file)."),
  OUTBOX_POLL_MS: Joi.number()
    .integer()
    .min(50)
    .max(600_000)
    .default(2_000)
    .description(
      'How often the change relay looks for events to publish (retries, the backlog after a broker outage, events of other replicas); a write wakes it at once.',
    ),
} satisfies ConfigKeys<ArticlesConfig, keyof BaseConfig>;

/** The articles service's environment: the common keys plus its own. */
export const configSchema = baseConfigSchema.keys(keys) as Joi.ObjectSchema<ArticlesConfig>;
