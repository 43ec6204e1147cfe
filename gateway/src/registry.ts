/** The registry (`services.json`), as `@restgate/shared` reads it for every process that needs it. */
export { readRegistry, ROOT_DIR, routedServices, type Registry, type RegistryService, type RoutedService } from '@restgate/shared';
