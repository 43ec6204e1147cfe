import { availableParallelism } from 'node:os';
import Joi from 'joi';
import { baseConfigSchema, type BaseConfig } from '@restgate/shared';

export interface IdentityConfig extends BaseConfig {
  MONGODB_URL: string;
  MONGODB_DB: string;
  JWT_SECRET: string;
  JWT_ISSUER: string;
  JWT_AUDIENCE: string;
  JWT_TTL_SECONDS: number;
  PASSWORD_MIN_LENGTH: number;
  BCRYPT_ROUNDS: number;
  HASH_WORKERS: number;
}

export const identityConfigSchema = baseConfigSchema.keys({
  PORT: Joi.number().port().default(9001).description('Port to listen on.'),
  MONGODB_URL: Joi.string()
    .uri({ scheme: ['mongodb', 'mongodb+srv'] })
    .required()
    .description('MongoDB connection string.'),
  MONGODB_DB: Joi.string().default('identity').description('Database owned by the identity service.'),
  JWT_SECRET: Joi.string()
    .min(32)
    .required()
    .invalid(Joi.ref('PRINCIPAL_SECRET'))
    .messages({ 'any.invalid': '{{#label}} must differ from PRINCIPAL_SECRET' })
    .description('HS256 key for user tokens (shared with the gateway, which verifies them).'),
  JWT_ISSUER: Joi.string().default('restgate').description('`iss` of the user tokens.'),
  JWT_AUDIENCE: Joi.string().default('restgate-api').description('`aud` of the user tokens.'),
  JWT_TTL_SECONDS: Joi.number().integer().min(60).default(86_400).description('Lifetime of a user token, in seconds.'),
  PASSWORD_MIN_LENGTH: Joi.number().integer().min(1).max(72).default(8).description('Shortest accepted password, in characters.'),
  BCRYPT_ROUNDS: Joi.number().integer().min(4).max(31).default(10).description('bcrypt cost factor (log2 of the rounds).'),
  HASH_WORKERS: Joi.number()
    .integer()
    .min(1)
    .max(64)
    .default(Math.max(1, availableParallelism() - 1))
    .description('Worker threads that hash and compare passwords (default: one core left for the event loop).'),
}) as Joi.ObjectSchema<IdentityConfig>;
