/**
 * docker-compose.yml, checked without a container engine: parsed and interpolated like compose
 * does (with a stand-in .env), then held to the rules in support/compose-checks.ts and to each
 * service's own config schema.
 */
import fs from 'node:fs';
import path from 'node:path';
import { portMappingsOf } from './support/compose';
import {
  agreementProblems,
  dependencyProblems,
  healthcheckProblems,
  imageTagProblems,
  lifecycleProblems,
  networkProblems,
  portProblems,
  secretProblems,
  undocumentedVariables,
  wiringProblems,
} from './support/compose-checks';
import { checkEnvironment, loadConfigSchema, type SchemaResult } from './support/config-schemas';
import { interpolateDocument, MissingVariableError } from './support/interpolate';
import { BACKING_PORTS, ROOT, containerEnvironment, imageHasHealthcheck, loadStack } from './support/stack';

const PUBLISHED = { gateway: { 9000: 9000 }, mailpit: { 8025: 8025 } };
/**
 * Networks with a way in or out: published ports (edge); identity's calls to the social login
 * providers and the webhooks service's deliveries (egress).
 */
const OUTSIDE = { gateway: ['edge'], mailpit: ['edge'], identity: ['egress'], webhooks: ['egress'] };
const SECRETS = ['MASTER_KEY', 'JWT_SECRET', 'PRINCIPAL_SECRET'];
/** Settings the gateway and the services must share (see the runtime contract). */
const SHARED_SETTINGS = ['PRINCIPAL_SECRET', 'JWT_SECRET', 'JWT_ISSUER', 'JWT_AUDIENCE', 'ROUTE_POLICY'];

const stack = loadStack();
const builtServices = Object.keys(stack.built);
const configs: Record<string, SchemaResult> = {};

beforeAll(async () => {
  for (const name of builtServices) {
    try {
      configs[name] = checkEnvironment(await loadConfigSchema(stack.built[name]!.packageDir), containerEnvironment(stack, name));
    } catch (err) {
      configs[name] = { problems: [`cannot load its config schema: ${(err as Error).message}`], value: {} };
    }
  }
});

const healthChecked = (name: string) =>
  healthcheckProblems({ services: { [name]: stack.compose.services[name] ?? {} } }, () => imageHasHealthcheck(stack, name)).length === 0;
const listensOn = (name: string) => (stack.built[name] ? [Number(configs[name]?.value.PORT)] : (BACKING_PORTS[name] ?? []));

describe('docker-compose.yml: the services built here', () => {
  test('when a service package has a src/start.ts, then the compose file builds it', () => {
    const packages = ['gateway', ...fs.readdirSync(path.join(ROOT, 'services')).map((dir) => `services/${dir}`)].filter((dir) =>
      fs.existsSync(path.join(ROOT, dir, 'src', 'start.ts')),
    );
    const builtPackages = Object.values(stack.built).map((b) => b.args.SERVICE);
    expect(packages.filter((dir) => !builtPackages.includes(dir))).toEqual([]);
    expect(builtServices).toEqual(expect.arrayContaining(['gateway', 'identity', 'articles', 'mailer']));
  });

  test.each(builtServices)('%s: its build names a package whose entry point the image starts', (name) => {
    const b = stack.built[name]!;
    expect(fs.existsSync(b.dockerfilePath)).toBe(true);
    expect(fs.existsSync(path.join(b.packageDir, 'src', 'start.ts'))).toBe(true);
    const pkg = JSON.parse(fs.readFileSync(path.join(b.packageDir, 'package.json'), 'utf8')) as { main?: string };
    expect(pkg.main).toBe('dist/start.js');
    // The image's PORT (build argument) is the port the compose file tells the service to use.
    expect(containerEnvironment(stack, name).PORT).toBe(b.args.PORT);
  });

  test.each(builtServices)('%s: its container environment satisfies its config schema', (name) => {
    const result = configs[name]!;
    expect(result.problems).toEqual([]);
    expect(result.value).toMatchObject({ NODE_ENV: 'production', HOST: '0.0.0.0' });
  });

  test('the gateway and the services agree on the settings they share', () => {
    const values = Object.fromEntries(builtServices.map((name) => [name, configs[name]?.value ?? {}]));
    expect(agreementProblems(values, SHARED_SETTINGS)).toEqual([]);
    expect(builtServices.filter((name) => values[name]?.PRINCIPAL_SECRET === undefined)).toEqual([]);
  });

  test('they run under an init and get more time to stop than their own shutdown bound', () => {
    const shutdownMs = (name: string) => Number(configs[name]?.value.SHUTDOWN_TIMEOUT_MS ?? 10_000);
    const drainMs = (name: string) => Number(configs[name]?.value.DRAIN_DELAY_MS ?? 0);
    expect(lifecycleProblems(stack.compose, shutdownMs, drainMs)).toEqual([]);
  });
});

describe('docker-compose.yml: health and start order', () => {
  test('every service has a healthcheck (its own, or its image HEALTHCHECK)', () => {
    expect(healthcheckProblems(stack.compose, (name) => imageHasHealthcheck(stack, name))).toEqual([]);
  });

  test('every depends_on waits for a healthy service', () => {
    expect(dependencyProblems(stack.compose, healthChecked)).toEqual([]);
    expect(Object.values(stack.compose.services).filter((s) => s.depends_on).length).toBeGreaterThan(0);
  });

  test('settings that point at another service use its port, share a network with it and depend on it', () => {
    expect(wiringProblems(stack.compose, listensOn)).toEqual([]);
  });
});

describe('docker-compose.yml: exposure', () => {
  test('only the gateway (9000) and the Mailpit web UI (8025) publish ports', () => {
    expect(portProblems(stack.compose, PUBLISHED)).toEqual([]);
    expect(portMappingsOf(stack.compose.services.gateway!).map((m) => m.targets)).toEqual([[9000]]);
  });

  test('the Mailpit UI (password-reset mail) answers on loopback only', () => {
    expect(portMappingsOf(stack.compose.services.mailpit!).map((m) => m.hostIp)).toEqual(['127.0.0.1']);
  });

  test('services and databases sit on internal networks; only the gateway and Mailpit reach the edge, only identity and webhooks go out', () => {
    expect(networkProblems(stack.compose, OUTSIDE)).toEqual([]);
  });

  test('images from registries name a version', () => {
    expect(imageTagProblems(stack.compose)).toEqual([]);
  });
});

describe('docker-compose.yml: secrets', () => {
  test('secrets are required references to .env, never literals, defaults or build arguments', () => {
    expect(secretProblems(stack.raw)).toEqual([]);
  });

  test.each([...SECRETS, 'MFA_ENCRYPTION_KEY', 'RABBITMQ_DEFAULT_PASS'])('when %s is not set, then compose stops with a message', (name) => {
    const required = stack.uses.filter((u) => u.name === name);
    expect(required.length).toBeGreaterThan(0);
    expect(required.every((u) => u.operator === ':?' && u.argument.length > 0)).toBe(true);
    const { [name]: _missing, ...rest } = stack.env;
    expect(() => interpolateDocument(stack.raw, rest)).toThrow(MissingVariableError);
  });

  test('every variable the compose file reads is documented in .env.example', () => {
    const file = path.join(ROOT, '.env.example');
    expect(fs.existsSync(file)).toBe(true);
    expect(undocumentedVariables(stack.uses, fs.readFileSync(file, 'utf8'))).toEqual([]);
  });
});

describe('docker-compose.yml: data', () => {
  test.each([
    ['mongo', '/data/db'],
    ['rabbitmq', '/var/lib/rabbitmq'],
  ])('%s keeps its data in a named volume', (name, dir) => {
    const mounts = (stack.compose.services[name]?.volumes ?? []) as string[];
    const volume = mounts.map((m) => m.split(':')).find(([, target]) => target === dir)?.[0];
    expect(volume).toBeDefined();
    expect(Object.keys(stack.compose.volumes ?? {})).toContain(volume);
  });
});
