/**
 * Rules for docker-compose.yml, each a function from the parsed file to a list of problems (empty
 * when the rule holds), so that the tests can run them on the real file and on broken copies.
 */
import {
  buildOf,
  dependenciesOf,
  durationMs,
  environmentOf,
  hasOwnHealthcheck,
  networksOf,
  portMappingsOf,
  toStringMap,
  type ComposeFile,
} from './compose';
import type { VariableUse } from './interpolate';

const services = (compose: ComposeFile) => Object.entries(compose.services);

/** Every service can tell whether it is healthy: its own healthcheck, or its image's HEALTHCHECK. */
export function healthcheckProblems(compose: ComposeFile, imageHasHealthcheck: (service: string) => boolean): string[] {
  return services(compose)
    .filter(([name, service]) => {
      if (service.healthcheck?.disable || (Array.isArray(service.healthcheck?.test) && service.healthcheck.test[0] === 'NONE')) return true;
      return !hasOwnHealthcheck(service) && !(buildOf(service) && imageHasHealthcheck(name));
    })
    .map(([name]) => `${name}: no healthcheck`);
}

/** Every dependency waits for health (`condition: service_healthy`), on a service that has a healthcheck. */
export function dependencyProblems(compose: ComposeFile, isHealthChecked: (service: string) => boolean): string[] {
  return services(compose).flatMap(([name, service]) =>
    dependenciesOf(service).flatMap((dep) => {
      if (!compose.services[dep.name]) return [`${name}: depends on ${dep.name}, which is not a service`];
      const problems: string[] = [];
      if (dep.condition !== 'service_healthy')
        problems.push(`${name}: depends on ${dep.name} with condition ${dep.condition}, not service_healthy`);
      if (!isHealthChecked(dep.name)) problems.push(`${name}: depends on ${dep.name}, which has no healthcheck`);
      return problems;
    }),
  );
}

/** Only the allowed services publish, and only the allowed container port on the allowed host port. */
export function portProblems(compose: ComposeFile, allowed: Record<string, Record<number, number>>): string[] {
  return services(compose).flatMap(([name, service]) => {
    const problems: string[] = [];
    if (service.network_mode === 'host') problems.push(`${name}: network_mode host publishes every port`);
    for (const mapping of portMappingsOf(service)) {
      for (const target of mapping.targets.length > 0 ? mapping.targets : [NaN]) {
        const hostPort = allowed[name]?.[target];
        if (hostPort === undefined)
          problems.push(`${name}: publishes ${JSON.stringify(mapping.raw)}; only ${JSON.stringify(allowed)} may be published`);
        else if (mapping.published !== String(hostPort))
          problems.push(`${name}: publishes ${target} on host port ${mapping.published ?? '(random)'}, not ${hostPort}`);
      }
    }
    return problems;
  });
}

/**
 * Services sit on internal networks (no way in or out), and on no other network than the ones
 * `outside` allows them (the published ports' network, or a way out to third parties).
 */
export function networkProblems(compose: ComposeFile, outside: Record<string, string[]>): string[] {
  const declared = compose.networks ?? {};
  const isInternal = (network: string) => declared[network]?.internal === true;
  return services(compose).flatMap(([name, service]) => {
    if (service.network_mode) return [`${name}: network_mode ${service.network_mode} leaves the stack's networks`];
    const networks = networksOf(service);
    const problems = networks
      .filter((network) => network !== 'default' && !(network in declared))
      .map((network) => `${name}: network ${network} is not declared`);
    if (!networks.some(isInternal)) problems.push(`${name}: on no internal network (${networks.join(', ')})`);
    for (const network of networks.filter((n) => !isInternal(n) && !(outside[name] ?? []).includes(n))) {
      problems.push(`${name}: on ${network}, which is not internal`);
    }
    return problems;
  });
}

const SECRET_KEY = /(SECRET|PASSWORD|PASSWD|PASS|TOKEN|CREDENTIALS?|PRIVATE_KEY|(^|_)KEY)$/i;
const REQUIRED_REFERENCE = /^\$\{[A-Za-z_][A-Za-z0-9_]*:?\?[^{}]*\}$/;
/** An optional secret: off unless .env sets it, with no value to fall back on. */
const OPTIONAL_REFERENCE = /^\$\{[A-Za-z_][A-Za-z0-9_]*:-\}$/;
const URL_PASSWORD = /^[a-z][a-z0-9+.-]*:\/\/[^/@:]*:([^/@]*)@/i;

/** The password part of a URL with user info, `${…}` references read as single tokens. */
function urlPassword(value: string): string | undefined {
  const refs: string[] = [];
  const masked = value.replace(/\$\{[^{}]*\}/g, (ref) => `\uE000${refs.push(ref) - 1}\uE000`);
  const password = URL_PASSWORD.exec(masked)?.[1];
  return password?.replace(/\uE000(\d+)\uE000/g, (_m, i: string) => refs[Number(i)] as string);
}

/**
 * On the file as written (before interpolation): secret-named settings are references to .env,
 * required (`${VAR:?message}`) or optional with an empty default (`${VAR:-}`), never a literal
 * or a default value; passwords inside URLs are required references; build arguments, which stay
 * in the image's history, carry no secrets.
 */
export function secretProblems(raw: ComposeFile): string[] {
  return services(raw).flatMap(([name, service]) => {
    const problems: string[] = [];
    for (const [key, value] of Object.entries(environmentOf(service))) {
      if (SECRET_KEY.test(key) && !(value !== undefined && (REQUIRED_REFERENCE.test(value) || OPTIONAL_REFERENCE.test(value)))) {
        problems.push(`${name}: ${key} must be a reference to .env (\${${key}:?…} or \${${key}:-}), not ${JSON.stringify(value)}`);
      }
      const password = value === undefined ? undefined : urlPassword(value);
      if (password !== undefined && !REQUIRED_REFERENCE.test(password)) {
        problems.push(`${name}: ${key} has a password in its URL that is not a required reference to .env`);
      }
    }
    const args = typeof service.build === 'object' ? toStringMap(service.build.args) : {};
    for (const key of Object.keys(args).filter((k) => SECRET_KEY.test(k))) {
      problems.push(`${name}: build argument ${key} looks secret; build arguments stay in the image history`);
    }
    return problems;
  });
}

/** Images from elsewhere name a version (at least the major), never `latest` or nothing. */
export function imageTagProblems(compose: ComposeFile): string[] {
  return services(compose)
    .filter(([, service]) => service.image !== undefined && !buildOf(service))
    .flatMap(([name, service]) => {
      const image = service.image as string;
      const tag = /:([^/:@]+)$/.exec(image)?.[1];
      return tag && tag !== 'latest' && /^v?\d/.test(tag) ? [] : [`${name}: image ${image} does not name a version`];
    });
}

/**
 * The services built here run under an init (signals forwarded, children reaped) and get more time
 * to stop than they give themselves (DRAIN_DELAY_MS serving on, then SHUTDOWN_TIMEOUT_MS for
 * in-flight work), so a graceful stop is not cut short.
 */
export function lifecycleProblems(
  compose: ComposeFile,
  shutdownMs: (service: string) => number,
  drainMs: (service: string) => number = () => 0,
): string[] {
  return services(compose)
    .filter(([, service]) => buildOf(service))
    .flatMap(([name, service]) => {
      const problems: string[] = [];
      if (service.init !== true) problems.push(`${name}: needs init: true`);
      const grace = durationMs(service.stop_grace_period ?? '10s');
      const needed = drainMs(name) + shutdownMs(name) + 2_000;
      if (grace === undefined || grace < needed) {
        problems.push(
          `${name}: stop_grace_period ${service.stop_grace_period ?? '(10s default)'} is shorter than DRAIN_DELAY_MS + SHUTDOWN_TIMEOUT_MS + 2 s (${needed} ms)`,
        );
      }
      return problems;
    });
}

const DEFAULT_PORTS: Record<string, number> = { 'http:': 80, 'https:': 443, 'mongodb:': 27017, 'amqp:': 5672, 'amqps:': 5671, 'smtp:': 25 };

/**
 * Settings that point at another service (`http://identity:9001`, `mongodb://mongo:27017`) name a
 * port it listens on, share a network with it, and wait for it to be healthy.
 */
export function wiringProblems(compose: ComposeFile, listensOn: (service: string) => number[]): string[] {
  return services(compose).flatMap(([name, service]) =>
    Object.entries(environmentOf(service)).flatMap(([key, value]) => {
      let url: URL;
      try {
        url = new URL(value ?? '');
      } catch {
        return [];
      }
      const target = compose.services[url.hostname];
      if (!target) return [];
      const problems: string[] = [];
      const port = url.port ? Number(url.port) : DEFAULT_PORTS[url.protocol];
      if (port === undefined || !listensOn(url.hostname).includes(port)) {
        problems.push(
          `${name}: ${key} points at ${url.hostname}:${port ?? '?'}, but ${url.hostname} listens on ${listensOn(url.hostname).join(', ') || 'nothing known'}`,
        );
      }
      if (!networksOf(service).some((n) => networksOf(target).includes(n)))
        problems.push(`${name}: ${key} points at ${url.hostname}, on no common network`);
      if (!dependenciesOf(service).some((dep) => dep.name === url.hostname))
        problems.push(`${name}: ${key} points at ${url.hostname}, but ${name} does not depend on it`);
      return problems;
    }),
  );
}

/** Settings that must be equal wherever they are used (validated values, defaults applied). */
export function agreementProblems(configs: Record<string, Record<string, unknown>>, keys: string[]): string[] {
  return keys.flatMap((key) => {
    const holders = Object.entries(configs).filter(([, config]) => config[key] !== undefined);
    const distinct = new Set(holders.map(([, config]) => JSON.stringify(config[key])));
    return distinct.size > 1 ? [`${key} differs between ${holders.map(([name]) => name).join(', ')}`] : [];
  });
}

/** Every variable the file reads is documented in .env.example (as `KEY=` or `# KEY=`). */
export function undocumentedVariables(uses: VariableUse[], envExample: string): string[] {
  const documented = new Set([...envExample.matchAll(/^[ \t]*#?[ \t]*([A-Za-z_][A-Za-z0-9_]*)=/gm)].map((m) => m[1]));
  return [...new Set(uses.map((u) => u.name))].filter((name) => !documented.has(name)).map((name) => `${name} is not in .env.example`);
}
