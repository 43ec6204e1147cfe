import Joi from 'joi';
import { baseConfigSchema, type BaseConfig } from '@restgate/shared';
import { rateLimitConfigKeys, type RateLimitConfig } from './rate-limit.config';
import { readRegistry, routedServices, type RoutedService } from './registry';

const upstreamUrl = () => Joi.string().uri({ scheme: ['http', 'https'] });

/**
 * The gateway's environment: the only place it reads `process.env` (through `loadConfig`).
 * One `<NAME>_URL` key per service it routes to, named by the service registry (services.json),
 * defaulting to the port the registry gives that service on loopback.
 */
export function gatewayConfigSchemaFor(services: readonly RoutedService[]): Joi.ObjectSchema<GatewayConfig> {
  return baseConfigSchema.keys({
    PORT: Joi.number().port().default(9000).description('Port to listen on.'),
    MASTER_KEY: Joi.string().min(32).required().description('The master key: sign-up and sign-in need it (level master).'),
    JWT_SECRET: Joi.string().min(32).required().description('HMAC key of user tokens (identity signs, the gateway verifies).'),
    JWT_ISSUER: Joi.string().default('restgate').description('Required `iss` of user tokens.'),
    JWT_AUDIENCE: Joi.string().default('restgate-api').description('Required `aud` of user tokens.'),
    JWT_TTL_SECONDS: Joi.number()
      .integer()
      .min(60)
      .max(86_400)
      .default(900)
      .description(
        "The longest access-token lifetime accepted, in seconds: identity's JWT_TTL_SECONDS. A token with a longer `exp − iat`, or issued longer ago, is refused.",
      ),
    ...Object.fromEntries(
      services.map((s) => [
        s.urlEnv,
        upstreamUrl().default(`http://127.0.0.1:${s.port}`).description(`Base URL of the ${s.name} service.`),
      ]),
    ),
    UPSTREAM_TIMEOUT_MS: Joi.number().integer().min(1).default(10_000).description('How long an upstream may stay silent before a 504.'),
    UPSTREAM_MAX_SOCKETS: Joi.number().integer().min(1).default(256).description('Keep-alive connections per upstream, at most.'),
    UPSTREAM_CONNECT_TIMEOUT_MS: Joi.number()
      .integer()
      .min(1)
      .default(2_000)
      .description(
        'How long a new connection to an upstream may take; past it the request goes to another connection (any method: the service never saw it).',
      ),
    CORS_ORIGINS: Joi.string()
      .allow('')
      .default('')
      .description('Comma list of browser origins allowed by CORS ("*" for any); empty turns CORS off.'),
    MFA_REQUIRED_ROLES: Joi.string()
      .allow('')
      .pattern(/^\s*(?:(?:user|admin)\s*(?:,\s*|$))*$/)
      .default('')
      .description(
        'Comma list of roles (`admin`, `user`) whose tokens pass admin-level routes only when signed in with a second factor (`amr` has `otp` or `mfa`); empty: none.',
      ),
    METRICS_TOKEN: Joi.string()
      .min(32)
      .allow('')
      .default('')
      .description('Bearer token that GET /metrics of the gateway requires (at least 32 characters); empty: /metrics is a 404.'),
  }).keys(rateLimitConfigKeys);
}

export const gatewayConfigSchema: Joi.ObjectSchema<GatewayConfig> = gatewayConfigSchemaFor(routedServices(readRegistry()));

export interface GatewayConfig extends BaseConfig, RateLimitConfig {
  MASTER_KEY: string;
  JWT_SECRET: string;
  JWT_ISSUER: string;
  JWT_AUDIENCE: string;
  JWT_TTL_SECONDS: number;
  UPSTREAM_TIMEOUT_MS: number;
  UPSTREAM_MAX_SOCKETS: number;
  UPSTREAM_CONNECT_TIMEOUT_MS: number;
  CORS_ORIGINS: string;
  METRICS_TOKEN: string;
  MFA_REQUIRED_ROLES: string;
  /** The base URL of each routed service, under the key the registry names (`IDENTITY_URL`, …). */
  [upstreamUrlKey: `${string}_URL`]: string;
}
