/**
 * `@restgate/shared/openapi`: OpenAPI 3.1 from the route tables. Each service builds its part from
 * the same rows (and joi schemas) that route and validate its requests; the gateway merges the
 * parts. Everything that depends on an access level comes from `applyAccessLevel`, so the gateway
 * can re-apply its own.
 */
export { applyAccessLevel } from './access';
export { baseComponents } from './components';
export { buildOpenApiPart } from './document';
export { buildOperation, openApiPath } from './operation';
export { addErrorResponses } from './responses';
export { API_VERSION, OPENAPI_VERSION, type OpenApiComponents, type OpenApiDocument, type OpenApiOperation } from './types';
