export { AppError, errors, isAppError, type AppErrorOptions, type FieldError } from './errors';
export { baseConfigSchema, loadConfig, ConfigError, type BaseConfig } from './config';
export { createLogger, REDACTED_PATHS, type Logger } from './logger';
export { ANONYMOUS, PRINCIPAL_HEADER, signPrincipal, verifyPrincipal, type Principal } from './principal';
export {
  ACCESS_LEVELS,
  applyPolicy,
  assertAccess,
  bindRoutes,
  defineRoute,
  defineSpec,
  mountRoutes,
  parsePolicyOverrides,
  routeKey,
  validateInput,
  type AccessLevel,
  type HttpMethod,
  type ResponseDoc,
  type ApiHandlers,
  type RouteDef,
  type RouteInput,
  type RouteResult,
  type RouteSpec,
  type ServiceApi,
} from './routes';
export { normalizeError, problemHandler, sendProblem, toProblem, PROBLEM_CONTENT_TYPE } from './problem';
export { REQUEST_ID_HEADER, requestIdFor } from './request-id';
export { mountHealth, type ReadinessCheck } from './health';
export { createHttpApp, assertSupportedBody, hasBody, redactUrl, type HttpAppOptions } from './http-app';
export { listen, stopOnSignals, type RunningServer } from './server';
export { createMongo, isDuplicateKeyError, parseObjectId, retryUntil, type MongoHandle } from './mongo';
export { runService, type ServiceParts } from './service';
export {
  escapeRegex,
  listingQuerySchema,
  listingResult,
  LISTING_LIMITS,
  mongoSort,
  searchFilter,
  type ListingQuery,
  type ListingSpec,
} from './listing';
export {
  addErrorResponses,
  API_DESCRIPTION,
  API_VERSION,
  applyAccessLevel,
  baseComponents,
  buildOpenApiPart,
  buildOperation,
  joiToJsonSchema,
  OPENAPI_VERSION,
  openApiPath,
  type JsonSchema,
  type OpenApiComponents,
  type OpenApiDocument,
  type OpenApiInfo,
  type OpenApiOperation,
  type OpenApiParameter,
  type OpenApiPathItem,
  type OpenApiResponse,
} from './openapi';
export {
  createEnvelope,
  envelopeSchema,
  hasControlCharacters,
  validateMessage,
  MAX_MESSAGE_BYTES,
  MESSAGE_DATA_SCHEMAS,
  MESSAGE_ID_PATTERN,
  MESSAGE_TYPES,
  type Message,
  type MessageDataByType,
  type MessageEnvelope,
  type MessageMeta,
  type MessageType,
  type PasswordResetMailData,
  type ValidationResult,
} from './messages';
export {
  createAmqp,
  declareMailTopology,
  mailTopology,
  DEFAULT_RETRY_DELAYS_MS,
  MAIL_DELIVERY_LIMIT,
  MESSAGE_HEADERS,
  PublishError,
  type AmqpClient,
  type AmqpOptions,
  type MailTopology,
  type PublishFailure,
  type PublishOptions,
  type RawPublishProperties,
  type ReadyHandler,
} from './amqp';
export { markStopping } from './health';
export { OPERATIONS_PATHS } from './http-app';
export { type ServiceContext } from './service';
export {
  createMetrics,
  httpMetrics,
  labelRoute,
  mayReadMetrics,
  UNMATCHED_ROUTE,
  type Counter,
  type CounterOptions,
  type Gauge,
  type GaugeOptions,
  type Histogram,
  type HistogramOptions,
  type Metrics,
  type MetricsAccess,
} from './metrics';
export {
  assertSafeSettings,
  findUnsafeSettings,
  KNOWN_WEAK_SECRETS,
  MIN_SECRET_BYTES,
  SECRET_KEY_PATTERN,
  UnsafeSettingsError,
} from './production-checks';
export {
  parseAuthorization,
  singleCredential,
  type Authorization,
  type CredentialPlace,
  type PresentedToken,
} from './credentials';
export { createRedis, type RedisHandle } from './redis';
export {
  createRateLimits,
  parseQuota,
  rateLimited,
  rateLimitHeaders,
  QUOTA_PATTERN,
  type LimitDecision,
  type LimitRule,
  type Limiter,
  type Quota,
  type RateLimits,
  type StoreFallback,
} from './rate-limit';
export { CLIENT_ADDRESS_HEADER, signClientAddress, verifyClientAddress } from './client-address';
