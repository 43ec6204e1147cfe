import type { RouteDef } from '../http/routes';
import { baseComponents } from './components';
import { buildOperation, openApiPath } from './operation';
import { API_VERSION, OPENAPI_VERSION, type OpenApiDocument, type OpenApiOperation, type OpenApiPathItem } from './types';

/**
 * A service's part of the OpenAPI document: a complete OpenAPI 3.1 document for its route
 * table (the gateway merges the parts and keeps the routes it serves).
 */
export function buildOpenApiPart(routes: RouteDef[], info: { title: string; version?: string; description?: string }): OpenApiDocument {
  const components = baseComponents();
  const paths: Record<string, OpenApiPathItem> = {};
  const tags: string[] = [];
  for (const route of routes) {
    let operation: OpenApiOperation;
    try {
      operation = buildOperation(route, components);
    } catch (err) {
      throw new Error(`openapi: cannot describe ${route.method.toUpperCase()} ${route.path}: ${(err as Error).message}`, { cause: err });
    }
    const item = (paths[openApiPath(route.path)] ??= {});
    if (item[route.method]) throw new Error(`openapi: ${route.method.toUpperCase()} ${route.path} is in the route table twice`);
    item[route.method] = operation;
    for (const tag of operation.tags ?? []) if (!tags.includes(tag)) tags.push(tag);
  }
  return {
    openapi: OPENAPI_VERSION,
    info: { title: info.title, version: info.version ?? API_VERSION, description: info.description },
    tags: tags.map((name) => ({ name })),
    paths,
    components,
  };
}
