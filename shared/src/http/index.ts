/**
 * `@restgate/shared/http`: routes and the HTTP app. A route spec (`defineSpec`, in a service's
 * `src/api.ts`) with its handler (`bindRoutes`) is a row of the route table that drives
 * validation, access and the docs; `createHttpApp` serves a table with the bootstrap every service
 * shares (request id, access log, security headers, parsers, problem+json, health, metrics). The
 * gateway builds its own app from the same parts.
 */
export {
  ACCESS_LEVELS,
  applyPolicy,
  assertAccess,
  bindRoutes,
  defineRoute,
  defineSpec,
  parsePolicyOverrides,
  routeKey,
  takesBasic,
  validateInput,
  type AccessLevel,
  type HttpMethod,
  type RouteDef,
  type RouteInput,
  type RouteResult,
  type RouteSpec,
  type ServiceApi,
} from './routes';
export { createHttpApp, hasBody, isOperationsRequest, OPERATIONS_PATHS, securityHeaderEntries, urlRedactor } from './http-app';
export { errorExplainer, PROBLEM_CONTENT_TYPE, toProblem } from './problem';
export { REQUEST_ID_HEADER } from './request-id';
export { requestIdOf, requestLog, requestTracker } from './access-log';
export { listen, type RunningServer } from './server';
export { isStopping, onStopping, readiness } from '../health';
export { operationsAnswerer, type OperationsAnswer, type OperationsAnswerer } from './operations';
export { httpObserver, labelRoute, mayReadMetrics, type MetricsAccess } from '../metrics';
export { parseAuthorization, singleCredential, type Authorization, type PresentedToken } from './credentials';
export { CLIENT_ADDRESS_HEADER, signClientAddress, verifyClientAddress } from './client-address';
export { assertIfMatch, entityTag, ifMatchOf } from './conditional';
export { httpPageSchema, httpUrlSchema } from './http-url';
