import YAML from 'yaml';

/** The parts of the compose file format these checks read. */
export interface ComposeService {
  image?: string;
  build?: string | { context?: string; dockerfile?: string; args?: Record<string, unknown> | string[] };
  environment?: Record<string, unknown> | string[];
  ports?: unknown[];
  expose?: unknown[];
  networks?: string[] | Record<string, unknown>;
  network_mode?: string;
  depends_on?: string[] | Record<string, { condition?: string } | null>;
  healthcheck?: { test?: string | string[]; disable?: boolean };
  init?: boolean;
  stop_grace_period?: string;
  [key: string]: unknown;
}

export interface ComposeFile {
  services: Record<string, ComposeService>;
  networks?: Record<string, { internal?: boolean } | null>;
  volumes?: Record<string, unknown>;
  [key: string]: unknown;
}

/** Parses like compose: YAML with merge keys (`<<: *anchor`). */
export function parseCompose(text: string): ComposeFile {
  const doc = YAML.parse(text, { merge: true }) as ComposeFile;
  if (!doc || typeof doc !== 'object' || !doc.services) throw new Error('compose file has no services');
  return doc;
}

/** `KEY: value` maps and `KEY=value` lists alike; a key without a value reads from the shell, so it is unset here. */
export function toStringMap(entries: Record<string, unknown> | string[] | undefined): Record<string, string | undefined> {
  if (!entries) return {};
  if (Array.isArray(entries)) {
    return Object.fromEntries(
      entries.map((entry) => {
        const at = entry.indexOf('=');
        return at < 0 ? [entry, undefined] : [entry.slice(0, at), entry.slice(at + 1)];
      }),
    );
  }
  return Object.fromEntries(Object.entries(entries).map(([key, value]) => [key, value === null ? undefined : String(value)]));
}

export const environmentOf = (service: ComposeService) => toStringMap(service.environment);

export interface BuildSpec {
  context: string;
  dockerfile: string;
  args: Record<string, string | undefined>;
}

export function buildOf(service: ComposeService): BuildSpec | undefined {
  const build = service.build;
  if (build === undefined) return undefined;
  if (typeof build === 'string') return { context: build, dockerfile: 'Dockerfile', args: {} };
  return { context: build.context ?? '.', dockerfile: build.dockerfile ?? 'Dockerfile', args: toStringMap(build.args) };
}

export function networksOf(service: ComposeService): string[] {
  const networks = service.networks;
  if (!networks) return ['default'];
  return Array.isArray(networks) ? networks : Object.keys(networks);
}

export interface Dependency {
  name: string;
  condition: string;
}

/** The short form (a list) means condition service_started. */
export function dependenciesOf(service: ComposeService): Dependency[] {
  const deps = service.depends_on;
  if (!deps) return [];
  if (Array.isArray(deps)) return deps.map((name) => ({ name, condition: 'service_started' }));
  return Object.entries(deps).map(([name, spec]) => ({ name, condition: spec?.condition ?? 'service_started' }));
}

export interface PortMapping {
  /** Container ports. */
  targets: number[];
  /** Host port(s) as written; undefined = an ephemeral host port, which still publishes. */
  published: string | undefined;
  hostIp: string | undefined;
  raw: unknown;
}

function portRange(text: string): number[] {
  const [from, to] = text.split('-').map(Number);
  if (from === undefined || !Number.isInteger(from)) return [];
  const last = to === undefined ? from : to;
  return Array.from({ length: Math.max(0, last - from + 1) }, (_, i) => from + i);
}

/** Short syntax `[[ip:]host:]container[/proto]` and the long syntax `{ target, published, host_ip }`. */
export function portMappingsOf(service: ComposeService): PortMapping[] {
  return (service.ports ?? []).map((raw) => {
    if (raw && typeof raw === 'object') {
      const long = raw as { target?: unknown; published?: unknown; host_ip?: unknown };
      return {
        targets: portRange(String(long.target)),
        published: long.published === undefined ? undefined : String(long.published),
        hostIp: long.host_ip === undefined ? undefined : String(long.host_ip),
        raw,
      };
    }
    const parts = String(raw)
      .replace(/\/(tcp|udp|sctp)$/, '')
      .split(':');
    const container = parts.pop() as string;
    const published = parts.pop();
    const hostIp = parts.length > 0 ? parts.join(':').replace(/^\[|\]$/g, '') : undefined;
    return { targets: portRange(container), published: published || undefined, hostIp, raw };
  });
}

/** Compose durations: `1m30s`, `15s`, `500ms`. */
export function durationMs(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const unit: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1_000, ms: 1, us: 0.001 };
  let total = 0;
  let rest = String(text);
  for (const match of String(text).matchAll(/(\d+(?:\.\d+)?)(ms|us|h|m|s)/g)) {
    total += Number(match[1]) * (unit[match[2] as string] as number);
    rest = rest.replace(match[0], '');
  }
  return rest === '' ? total : undefined;
}

/** A healthcheck that is there and not switched off. */
export function hasOwnHealthcheck(service: ComposeService): boolean {
  const hc = service.healthcheck;
  if (!hc || hc.disable) return false;
  const test = Array.isArray(hc.test) ? hc.test : [hc.test];
  return test.length > 0 && test[0] !== undefined && test[0] !== 'NONE';
}
