import { buildOf, dependenciesOf, environmentOf, type ComposeFile } from './compose';

/** The parts of services.json these checks read (gateway/src/registry.ts reads it for the gateway). */
export interface RegistryEntry {
  name: string;
  dir: string;
  port: number;
  urlEnv?: string;
  owns?: { database?: string };
  secrets: string[];
}

export interface RegistryShape {
  gateway: RegistryEntry;
  services: RegistryEntry[];
}

/**
 * Where docker-compose.yml (interpolated) disagrees with the service registry: every registry
 * entry is a compose service of the same name, built with `SERVICE=<dir>` and `PORT=<port>`,
 * listening on that port; the gateway gets `<urlEnv>=http://<name>:<port>` for each service it
 * routes to (and no other upstream URL) and waits for it; a service's database, when the compose
 * file names it, is the one the registry says it owns; nothing else is built from this repository.
 */
export function registryProblems(registry: RegistryShape, compose: ComposeFile): string[] {
  const problems: string[] = [];
  const entries = [registry.gateway, ...registry.services];
  for (const entry of entries) {
    const service = compose.services[entry.name];
    const build = service && buildOf(service);
    if (!service || !build) {
      problems.push(`${entry.name}: no compose service of that name built from this repository`);
      continue;
    }
    if (build.args.SERVICE !== entry.dir)
      problems.push(`${entry.name}: built with SERVICE=${build.args.SERVICE}, the registry says ${entry.dir}`);
    if (build.args.PORT !== String(entry.port))
      problems.push(`${entry.name}: built with PORT=${build.args.PORT}, the registry says ${entry.port}`);
    const env = environmentOf(service);
    if (env.PORT !== String(entry.port)) problems.push(`${entry.name}: PORT=${env.PORT}, the registry says ${entry.port}`);
    const database = entry.owns?.database;
    if (env.MONGODB_DB !== undefined && env.MONGODB_DB !== database) {
      problems.push(`${entry.name}: MONGODB_DB=${env.MONGODB_DB}, the registry says it owns ${database ?? 'no database'}`);
    }
  }

  const gateway = compose.services[registry.gateway.name];
  if (gateway) {
    const env = environmentOf(gateway);
    const waitsFor = dependenciesOf(gateway).map((d) => d.name);
    const routed = registry.services.filter((s) => s.urlEnv);
    for (const service of routed) {
      const expected = `http://${service.name}:${service.port}`;
      if (env[service.urlEnv!] !== expected) {
        problems.push(`${registry.gateway.name}: ${service.urlEnv}=${env[service.urlEnv!] ?? '(unset)'}, expected ${expected}`);
      }
      if (!waitsFor.includes(service.name)) problems.push(`${registry.gateway.name}: does not wait for ${service.name}`);
    }
    // Any other *_URL must be a backing service's (Redis), which the registry lists as a secret.
    const allowedUrls = new Set([...routed.map((s) => s.urlEnv), ...registry.gateway.secrets]);
    for (const key of Object.keys(env).filter((k) => k.endsWith('_URL') && !allowedUrls.has(k))) {
      problems.push(`${registry.gateway.name}: ${key} names no service the registry routes to`);
    }
  }

  const known = new Set(entries.map((e) => e.name));
  for (const [name, service] of Object.entries(compose.services)) {
    if (buildOf(service) && !known.has(name)) problems.push(`${name}: built from this repository but not in services.json`);
  }
  return problems;
}
