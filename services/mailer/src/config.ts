import path from 'node:path';
import Joi from 'joi';
import { baseConfigSchema, type BaseConfig, type ConfigKeys } from '@restgate/shared';
import { brokerUrlList, hasControlCharacters } from '@restgate/shared/messaging';
import { DEFAULT_RETRY_DELAYS_MS } from './amqp/mail.topology';

export interface MailerConfig extends BaseConfig {
  AMQP_URL: string;
  MONGODB_URL: string;
  MONGODB_DB: string;
  SMTP_URL: string;
  OUTBOX_DIR: string;
  MAIL_FROM: string;
  SMTP_POOL_SIZE: number;
  RETRY_DELAYS_MS: number[];
  SENDING_LEASE_MS: number;
  TOPOLOGY_PREFIX: string;
}

/** "1000,5000,30000" → [1000, 5000, 30000]: positive, increasing. */
const retryDelays = Joi.custom((value: unknown, helpers) => {
  const list = Array.isArray(value)
    ? value
    : String(value)
        .split(',')
        .map((part) => part.trim());
  const delays = list.filter((part) => part !== '').map(Number);
  const valid =
    delays.length > 0 && delays.every((d, i) => Number.isInteger(d) && d > 0 && d <= 86_400_000 && (i === 0 || d > delays[i - 1]!));
  return valid
    ? delays
    : helpers.message({ custom: 'must be a non-empty, comma-separated list of increasing delays in ms, e.g. "1000,5000,30000"' });
});

/** The mailer's own keys (checked against MailerConfig): the broker, its database, and where mail goes. */
const keys = {
  PORT: Joi.number().port().default(9003).description('Port to listen on (health and readiness only).'),
  AMQP_URL: brokerUrlList()
    .required()
    .description(
      'RabbitMQ URL, e.g. amqp://guest:guest@127.0.0.1:5672. For a cluster, its nodes comma-separated: the mailer connects to one (a random one first) and, when that connection is lost or refused, to the next.',
    ),
  MONGODB_URL: Joi.string()
    .uri({ scheme: ['mongodb', 'mongodb+srv'] })
    .required()
    .description('MongoDB connection string (a MongoDB-compatible server such as FerretDB works too).'),
  MONGODB_DB: Joi.string().default('mailer').description('Database this service owns (the delivery log).'),
  SMTP_URL: Joi.string()
    .uri({ scheme: ['smtp', 'smtps'] })
    .allow('')
    .default('')
    .description('SMTP server, e.g. smtp://user:pass@mail.example.com:587. Empty: write each mail to OUTBOX_DIR as <id>.eml.'),
  OUTBOX_DIR: Joi.string()
    .custom((value: string) => path.resolve(value))
    // Joi does not run rules on defaults, so the default is resolved here.
    .default(() => path.resolve('.data/outbox'))
    .description('Folder for .eml files when SMTP_URL is empty; relative paths resolve from the working directory.'),
  MAIL_FROM: Joi.string()
    .custom((value: string, helpers) =>
      hasControlCharacters(value) ? helpers.message({ custom: 'must not contain control characters (CR, LF, ...)' }) : value,
    )
    .default('restgate <no-reply@restgate.local>')
    .description('Sender of every mail, e.g. "restgate <no-reply@example.com>".'),
  SMTP_POOL_SIZE: Joi.number()
    .integer()
    .min(1)
    .max(50)
    .default(5)
    .description('SMTP connections, and messages handled at once (the AMQP prefetch).'),
  RETRY_DELAYS_MS: retryDelays
    .default(() => [...DEFAULT_RETRY_DELAYS_MS])
    .description('Waits between send attempts, in ms, comma-separated; after the last one a mail is dead-lettered.'),
  SENDING_LEASE_MS: Joi.number()
    .integer()
    .min(1_000)
    .default(60_000)
    .description(
      'How long a send in progress keeps other copies of its message waiting (a copy may send again after it); an SMTP send is abandoned after 80% of it.',
    ),
  TOPOLOGY_PREFIX: Joi.string()
    .pattern(/^[A-Za-z0-9._-]*$/)
    .allow('')
    .default('')
    .description('Prefix of the exchange and queue names (tests use one per file).'),
} satisfies ConfigKeys<MailerConfig, keyof BaseConfig>;

/** The mailer's environment: the common keys and its own. */
export const configSchema = baseConfigSchema.keys(keys) as Joi.ObjectSchema<MailerConfig>;
