/**
 * `@restgate/shared`: what every restgate process is built with — config, logger, errors, the
 * principal the gateway signs, metrics, and the service bootstrap (`runService`, which also runs
 * the production checks). The rest is by concern:
 * - `@restgate/shared/http`: route specs and tables, their policy, the HTTP app (problem+json,
 *   request ids, access log, health, metrics), credentials and conditional requests;
 * - `@restgate/shared/openapi`: the OpenAPI parts built from route tables, and their merging parts;
 * - `@restgate/shared/limits`: rate limits, session revocations, and the Redis client they share;
 * - `@restgate/shared/data`: MongoDB and listings (paging, cursors, filters);
 * - `@restgate/shared/messaging`: the RabbitMQ client, broker URLs and the message envelope;
 * - `@restgate/shared/resource`: the generic resource code the generator's resources use;
 * - `@restgate/shared/testing`: test helpers, and the parts of the kit only tests look into.
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
export { baseConfigSchema, loadConfig, userTokenConfigKeys, ConfigError, type BaseConfig, type ConfigKeys, type UserTokenConfig } from './config';
export { createLogger, REDACTED_PATHS, type Logger } from './logger';
export { currentRequest, runInRequest, type RequestContext } from './request-context';
export {
  ANONYMOUS,
  PRINCIPAL_HEADER,
  actsAsAdmin,
  assertAdminRights,
  hasSecondFactor,
  signPrincipal,
  verifyPrincipal,
  type Principal,
} from './principal';
export { type ReadinessCheck } from './health';
export { createMetrics, type Metrics } from './metrics';
export { runService } from './service';
export { Joi } from './joi';
export { readRegistry, ROOT_DIR, routedServices, type Registry, type RegistryService, type RoutedService } from './registry';
export { createKeyedHash, createSecretBox, type SecretBox } from './secret-box';
