import fs from 'node:fs';
import path from 'node:path';
import { ACCESS_LEVELS, type ServiceApi } from '@restgate/shared/http';
import { ROOT_DIR, type RoutedService } from './registry';

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** Where a service's compiled route specs are: `<dir>/dist/api.js`, below the repository root. */
export const compiledApiFile = (service: RoutedService): string => path.join(ROOT_DIR, service.dir, 'dist', 'api.js');

/**
 * The route specs of each service the gateway routes to, read from the files the services build
 * (never asked of a running service, so the table is whole before any upstream is up). A spec file
 * holds data only: joi schemas and `@restgate/shared`, nothing that connects or starts.
 * Throws naming the service when a file is missing or exports no usable `api`.
 */
export function loadServiceApis(
  services: readonly RoutedService[],
  fileOf: (service: RoutedService) => string = compiledApiFile,
): Record<string, ServiceApi> {
  const apis: Record<string, ServiceApi> = {};
  for (const service of services) {
    const file = fileOf(service);
    if (!fs.existsSync(file)) {
      throw new Error(`${service.name}: ${path.relative(ROOT_DIR, file)} is missing; build the services first (npx tsc -b)`);
    }
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const api = (require(file) as { api?: unknown }).api;
    apis[service.name] = assertServiceApi(api, `${service.name} (${path.relative(ROOT_DIR, file)})`);
  }
  return apis;
}

function assertServiceApi(api: unknown, where: string): ServiceApi {
  if (!api || typeof api !== 'object') throw new Error(`${where} exports no \`api\` object`);
  for (const [operation, spec] of Object.entries(api as Record<string, unknown>)) {
    const { method, path: routePath, level } = (spec ?? {}) as Record<string, unknown>;
    if (!METHODS.includes(method as string) || typeof routePath !== 'string' || !routePath.startsWith('/')) {
      throw new Error(`${where}: operation ${operation} has no valid method and path`);
    }
    if (!ACCESS_LEVELS.includes(level as never)) throw new Error(`${where}: operation ${operation} has an unknown level ${String(level)}`);
  }
  return api as ServiceApi;
}
