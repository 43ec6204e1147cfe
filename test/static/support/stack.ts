import fs from 'node:fs';
import path from 'node:path';
import { buildOf, environmentOf, parseCompose, type BuildSpec, type ComposeFile } from './compose';
import { checkEnvironment, loadConfigSchema, type SchemaResult } from './config-schemas';
import { effective, finalEnvironment, parseDockerfile, type Dockerfile } from './dockerfile';
import { interpolateDocument, stubEnvironment, variablesIn, type Environment, type VariableUse } from './interpolate';

/** The repository root. */
export const ROOT = path.resolve(__dirname, '..', '..', '..');

export const readRepoFile = (rel: string) => fs.readFileSync(path.join(ROOT, rel), 'utf8');

/** Ports the backing images listen on inside the network (their images, not this repo, decide). */
export const BACKING_PORTS: Record<string, number[]> = { mongo: [27017], rabbitmq: [5672, 15672], redis: [6379], mailpit: [1025, 8025] };

function stringsIn(doc: unknown): string[] {
  if (typeof doc === 'string') return [doc];
  if (Array.isArray(doc)) return doc.flatMap(stringsIn);
  if (doc && typeof doc === 'object') return Object.values(doc).flatMap(stringsIn);
  return [];
}

export interface Stack {
  /** The compose file as written. */
  raw: ComposeFile;
  /** Interpolated with `env`. */
  compose: ComposeFile;
  /** Every variable reference in the compose file. */
  uses: VariableUse[];
  /** Stand-in .env: a distinct 32+ character value for every variable without a default. */
  env: Environment;
  /** The services built from this repository, with their build. */
  built: Record<string, BuildSpec & { dockerfilePath: string; packageDir: string; recipe: Dockerfile }>;
}

export function loadStack(composeText = readRepoFile('docker-compose.yml')): Stack {
  const raw = parseCompose(composeText);
  const uses = stringsIn(raw).flatMap(variablesIn);
  const env = stubEnvironment(uses);
  const compose = interpolateDocument(raw, env);
  const built: Stack['built'] = {};
  for (const [name, service] of Object.entries(compose.services)) {
    const build = buildOf(service);
    if (!build) continue;
    const dockerfilePath = path.resolve(ROOT, build.context, build.dockerfile);
    const recipe = parseDockerfile(fs.existsSync(dockerfilePath) ? fs.readFileSync(dockerfilePath, 'utf8') : '');
    built[name] = { ...build, dockerfilePath, packageDir: path.resolve(ROOT, build.context, build.args.SERVICE ?? ''), recipe };
  }
  return { raw, compose, uses, env, built };
}

/** Whether a built service's image declares a HEALTHCHECK. */
export function imageHasHealthcheck(stack: Stack, service: string): boolean {
  const b = stack.built[service];
  const final = b?.recipe.stages[b.recipe.stages.length - 1];
  return !!b && !!final && !!effective(b.recipe, final, 'HEALTHCHECK');
}

/** What the container sees: the image's ENV, then the compose file's environment over it. */
export function containerEnvironment(stack: Stack, service: string): Record<string, string | undefined> {
  const b = stack.built[service];
  const imageEnv = b ? finalEnvironment(b.recipe, b.args) : {};
  return { ...imageEnv, ...environmentOf(stack.compose.services[service] ?? {}) };
}

/** Each built service's container environment checked against its own config schema. */
export async function checkServiceConfigs(stack: Stack): Promise<Record<string, SchemaResult>> {
  const results: Record<string, SchemaResult> = {};
  for (const [name, b] of Object.entries(stack.built)) {
    results[name] = checkEnvironment(await loadConfigSchema(b.packageDir), containerEnvironment(stack, name));
  }
  return results;
}
