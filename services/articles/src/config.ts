import Joi from 'joi';
import { baseConfigSchema, type BaseConfig, type ConfigKeys } from '@restgate/shared';

export interface ArticlesConfig extends BaseConfig {
  MONGODB_URL: string;
  MONGODB_DB: string;
}

/** The articles service's own keys (checked against ArticlesConfig): its database. */
const keys = {
  PORT: Joi.number().port().default(9002).description('Port to listen on.'),
  MONGODB_URL: Joi.string()
    .uri({ scheme: ['mongodb', 'mongodb+srv'] })
    .required()
    .description('MongoDB connection string (a MongoDB-compatible server such as FerretDB works too).'),
  MONGODB_DB: Joi.string().default('articles').description('Database this service owns.'),
} satisfies ConfigKeys<ArticlesConfig, keyof BaseConfig>;

/** The articles service's environment: the common keys plus its own. */
export const configSchema = baseConfigSchema.keys(keys) as Joi.ObjectSchema<ArticlesConfig>;
