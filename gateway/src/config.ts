import Joi from 'joi';
import { baseConfigSchema, userTokenConfigKeys, type BaseConfig, type ConfigKeys, type UserTokenConfig } from '@restgate/shared';
import { brokerUrlList } from '@restgate/shared/messaging';
import { rateLimitConfigKeys, type RateLimitConfig } from './rate-limit.config';
import { readRegistry, routedServices, type RoutedService } from './registry';

const upstreamUrl = () => Joi.string().uri({ scheme: ['http', 'https'] });

/**
 * The gateway's environment: the only place it reads `process.env` (through `loadConfig`).
 * One `<NAME>_URL` key per service it routes to, named by the service registry (services.json),
 * defaulting to the port the registry gives that service on loopback.
 */
export function gatewayConfigSchemaFor(services: readonly RoutedService[]): Joi.ObjectSchema<GatewayConfig> {
  // The gateway's own keys, checked against GatewayConfig (the upstreams' URL keys come from the registry).
  const keys = {
    PORT: Joi.number().port().default(9000).description('Port to listen on.'),
    MASTER_KEY: Joi.string().min(32).required().description('The master key: sign-up and sign-in need it (level master).'),
    ...userTokenConfigKeys,
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
    AMQP_URL: brokerUrlList()
      .allow('')
      .default('')
      .description(
        "RabbitMQ URL (or a cluster's nodes, comma-separated) the change events come from: GET /realtime streams them. Empty: no realtime (GET /realtime is a 404).",
      ),
    TOPOLOGY_PREFIX: Joi.string()
      .pattern(/^[A-Za-z0-9._-]*$/)
      .allow('')
      .default('')
      .description("Prefix of the events exchange's and the realtime queue's names, the same as the services' (tests use one per file)."),
    REALTIME_MAX_STREAMS_PER_PRINCIPAL: Joi.number()
      .integer()
      .min(1)
      .max(1000)
      .default(5)
      .description('Event streams one user (or the master key) may hold open, on all replicas together; past it: 429.'),
    REALTIME_MAX_STREAMS_PER_ADDRESS: Joi.number()
      .integer()
      .min(1)
      .max(100_000)
      .default(100)
      .description('Event streams one client address may hold open, on all replicas together; past it: 429.'),
    REALTIME_BUFFER_BYTES: Joi.number()
      .integer()
      .min(16_384)
      .default(1_048_576)
      .description("What may wait to be sent to one stream's client (bytes); past it the stream ends with `event: overflow`."),
    REALTIME_HEARTBEAT_MS: Joi.number()
      .integer()
      .min(1_000)
      .max(120_000)
      .default(25_000)
      .description('How often an idle stream gets a `:` comment, so proxies keep it open.'),
    REALTIME_WINDOW_MINUTES: Joi.number()
      .integer()
      .min(1)
      .max(1440)
      .default(10)
      .description('Events of each resource kept for resumes (Last-Event-ID): at least this many minutes...'),
    REALTIME_WINDOW_EVENTS: Joi.number().integer().min(100).max(1_000_000).default(10_000).description('...and at least this many events.'),
    METRICS_TOKEN: Joi.string()
      .min(32)
      .allow('')
      .default('')
      .description('Bearer token that GET /metrics of the gateway requires (at least 32 characters); empty: /metrics is a 404.'),
  } satisfies ConfigKeys<GatewayConfig, keyof BaseConfig | keyof RateLimitConfig>;
  return baseConfigSchema.keys(keys).keys(rateLimitConfigKeys);
}

export const gatewayConfigSchema: Joi.ObjectSchema<GatewayConfig> = gatewayConfigSchemaFor(routedServices(readRegistry()));

export interface GatewayConfig extends BaseConfig, RateLimitConfig, UserTokenConfig {
  MASTER_KEY: string;
  UPSTREAM_TIMEOUT_MS: number;
  UPSTREAM_MAX_SOCKETS: number;
  UPSTREAM_CONNECT_TIMEOUT_MS: number;
  CORS_ORIGINS: string;
  METRICS_TOKEN: string;
  MFA_REQUIRED_ROLES: string;
  AMQP_URL: string;
  TOPOLOGY_PREFIX: string;
  REALTIME_MAX_STREAMS_PER_PRINCIPAL: number;
  REALTIME_MAX_STREAMS_PER_ADDRESS: number;
  REALTIME_BUFFER_BYTES: number;
  REALTIME_HEARTBEAT_MS: number;
  REALTIME_WINDOW_MINUTES: number;
  REALTIME_WINDOW_EVENTS: number;
  /** The base URL of each routed service, under the key the registry names (`IDENTITY_URL`, …). */
  [upstreamUrlKey: `${string}_URL`]: string;
}
