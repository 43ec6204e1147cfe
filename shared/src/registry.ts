import fs from 'node:fs';
import path from 'node:path';
import Joi from 'joi';

/**
 * The repository root: `services.json` sits there, and every service's folder below it. Both
 * src/ (tests) and dist/ (runtime, also in the images of the gateway and the webhooks service,
 * which read the registry) are one level below shared/.
 */
export const ROOT_DIR = path.resolve(__dirname, '..', '..');

/** One entry of `services.json`. */
export interface RegistryService {
  name: string;
  /** The package folder, relative to the root; its compiled route specs are `<dir>/dist/api.js`. */
  dir: string;
  port: number;
  portEnv: string;
  /** The gateway's config key for the service's base URL; present exactly when the gateway routes to it. */
  urlEnv?: string;
  owns?: { database?: string; queues?: string[] };
  /** It reads the registry and every routed service's `dist/resource.js` (the resources' rules), so its image holds them. */
  readsResources?: boolean;
  secrets: string[];
}

export interface Registry {
  gateway: RegistryService;
  services: RegistryService[];
}

/** A service the gateway routes to: the registry says through which config key it learns the address. */
export type RoutedService = RegistryService & { urlEnv: string };

const name = Joi.string().pattern(/^[a-z][a-z0-9-]*$/);
const envKey = Joi.string().pattern(/^[A-Z][A-Z0-9_]*$/);
const entry = Joi.object({
  name: name.required(),
  dir: Joi.string().required(),
  port: Joi.number().port().required(),
  portEnv: envKey.required(),
  urlEnv: envKey.pattern(/_URL$/),
  owns: Joi.object({ database: Joi.string(), queues: Joi.array().items(Joi.string()) }),
  readsResources: Joi.boolean(),
  secrets: Joi.array().items(envKey).required(),
}).unknown(true);

const registrySchema = Joi.object<Registry>({
  gateway: entry.required(),
  services: Joi.array()
    .items(entry)
    .unique('name')
    .unique('port')
    .unique((a: RegistryService, b: RegistryService) => a.urlEnv !== undefined && a.urlEnv === b.urlEnv)
    .required(),
}).unknown(true);

/** Reads and checks `services.json`; throws naming the file and every problem. */
export function readRegistry(rootDir: string = ROOT_DIR): Registry {
  const file = path.join(rootDir, 'services.json');
  const { value, error } = registrySchema.validate(JSON.parse(fs.readFileSync(file, 'utf8')), { abortEarly: false });
  if (error) throw new Error(`${file}: ${error.details.map((d) => d.message).join('; ')}`);
  return value;
}

/** The services the gateway routes to, in registry order. */
export function routedServices(registry: Registry): RoutedService[] {
  return registry.services.filter((s): s is RoutedService => typeof s.urlEnv === 'string');
}
