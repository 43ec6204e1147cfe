/**
 * `@restgate/shared`: the HTTP service kit every restgate process is built with — config, logger,
 * errors and problem+json, the principal the gateway signs, route tables and their policy, the
 * HTTP app with health, readiness and metrics, the service bootstrap, MongoDB and listing helpers,
 * and the OpenAPI parts built from route tables; `runService` runs the production checks. Messaging
 * is `@restgate/shared/amqp`; test helpers, and the parts of the kit only tests look into, are
 * `@restgate/shared/testing`.
 */
export { AppError, errors, isAppError } from './errors';
// The error catalogue: codes as data (status, title, default detail), the factory that answers
// one, and the entries route specs list for their error responses.
export {
  CHALLENGES,
  errorCatalogue,
  isErrorCatalogue,
  problem,
  sharedErrorCatalogue,
  type CatalogueEntry,
  type CodeOf,
  type ErrorCatalogue,
  type ErrorEntry,
  type ProblemOptions,
  type SharedErrorCode,
} from './errors';
export { baseConfigSchema, loadConfig, ConfigError, type BaseConfig } from './config';
export { createLogger, REDACTED_PATHS, type Logger } from './logger';
export { ANONYMOUS, PRINCIPAL_HEADER, hasSecondFactor, signPrincipal, verifyPrincipal, type Principal } from './principal';
export {
  ACCESS_LEVELS,
  applyPolicy,
  assertAccess,
  takesBasic,
  bindRoutes,
  defineRoute,
  defineSpec,
  parsePolicyOverrides,
  routeKey,
  validateInput,
  type AccessLevel,
  type HttpMethod,
  type RouteDef,
  type RouteInput,
  type RouteResult,
  type RouteSpec,
  type ServiceApi,
} from './routes';
export { errorExplainer, PROBLEM_CONTENT_TYPE, sendProblem, toProblem } from './problem';
export { REQUEST_ID_HEADER } from './request-id';
export { requestIdOf, requestLog, requestTracker } from './access-log';
export { isStopping, readiness, type ReadinessCheck } from './health';
export { createHttpApp, assertSupportedBody, hasBody, isOperationsRequest, OPERATIONS_PATHS, securityHeaderEntries, urlRedactor, type SecretRoute } from './http-app';
export { listen, type RunningServer } from './server';
export { createMongo, isDuplicateKeyError, parseObjectId, retryUntil, type MongoHandle } from './mongo';
export { runService } from './service';
export { httpPageSchema, httpUrlSchema } from './http-url';
export { Joi } from './joi';
export { listingQuerySchema, listingResult, LISTING_LIMITS, type ListingPage, type ListingQuery, type ListingSpec } from './listing';
export { type FilterSpec } from './listing-filters';
export { createListingCursors, type ListingCursors } from './listing-cursor';
export { findPage } from './listing-page';
export { assertIfMatch, entityTag, ifMatchOf } from './conditional';
export {
  addErrorResponses,
  API_VERSION,
  applyAccessLevel,
  baseComponents,
  buildOpenApiPart,
  buildOperation,
  OPENAPI_VERSION,
  openApiPath,
  type OpenApiComponents,
  type OpenApiDocument,
  type OpenApiOperation,
} from './openapi';
export { createMetrics, httpObserver, labelRoute, mayReadMetrics, type Metrics, type MetricsAccess } from './metrics';
export { parseAuthorization, singleCredential, type Authorization, type PresentedToken } from './credentials';
export { createRedis, type RedisHandle } from './redis';
export { createRevocationList, recordRevocations, revocationKey, type RevocationList } from './revocations';
export {
  countLocally,
  createRateLimits,
  parseQuota,
  rateLimited,
  rateLimitHeaders,
  QUOTA_PATTERN,
  type LimitDecision,
  type Limiter,
  type Quota,
  type RateLimits,
} from './rate-limit';
export { CLIENT_ADDRESS_HEADER, signClientAddress, verifyClientAddress } from './client-address';
