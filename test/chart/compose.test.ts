/**
 * The chart runs what the compose stack runs, so that what the container and fleet tests prove of
 * the stack holds for the chart: the same image per component, the same environment keys, port and
 * liveness check, and at least the same time to stop; every registry entry on both sides, a
 * generated resource included. Compared through services.json, never by listing services here.
 *
 * STACK_FILES lists the compose-format files held to this; the fleet issue's swarm stack file
 * (deploy/swarm/stack.yml) joins the list when it lands.
 */
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { readRegistry, type Registry } from '../../gateway/src/registry';
import { checkEnvironment, loadConfigSchema } from '../static/support/config-schemas';
import { ROOT, loadStack, readRepoFile } from '../static/support/stack';
import { RELEASE, chartWithRegistry, ofKind, policyViolations, render, type Rendered } from './support/chart';
import { SECRET, chartShapes, entriesOf, servicePorts, stackShapes, type Shape } from './support/shapes';

const STACK_FILES = ['docker-compose.yml', 'deploy/swarm/stack.yml'];
const FULLNAME = `${RELEASE}`; // helm template restgate …: "restgate" already says restgate

const configKeys = YAML.parse(readRepoFile('deploy/helm/restgate/files/config-keys.yaml')) as {
  every: string[];
  /** What a component not listed under `components` reads besides `every` (articles, generated resources). */
  resources: string[];
  components: Record<string, string[]>;
};
const values = YAML.parse(readRepoFile('deploy/helm/restgate/values.yaml')) as { config: Record<string, string> };

/** The config keys the chart gives a component beyond the stack file: its documented ones that have a value. */
function documentedConfig(component: string): string[] {
  const config = values.config;
  return [...configKeys.every, ...(configKeys.components[component] ?? configKeys.resources)].filter((key) => (config[key] ?? '') !== '');
}

/**
 * Where a component's chart shape and stack shape differ. The chart may add the documented config
 * keys (values.yaml's `config`, .env.example's keys and defaults) that the stack file leaves to the
 * service's defaults, and leaves out what the stack file sets to an empty default (an unset key).
 */
export function shapeProblems(name: string, chart: Shape | undefined, stack: Shape | undefined, registry: Registry): string[] {
  if (!stack) return [`${name}: not in the stack file`];
  if (!chart) return [`${name}: no Deployment in the chart`];
  const problems: string[] = [];
  if (chart.image !== stack.image) problems.push(`${name}: image ${chart.image}, the stack file runs ${stack.image}`);
  if (chart.port !== stack.port) problems.push(`${name}: port ${chart.port}, the stack file's ${stack.port}`);

  const documented = documentedConfig(name);
  for (const [key, value] of Object.entries(stack.env)) {
    if (!(key in chart.env) && value !== '') problems.push(`${name}: ${key} is missing from the Deployment`);
  }
  for (const key of Object.keys(chart.env)) {
    if (!(key in stack.env) && !documented.includes(key))
      problems.push(`${name}: ${key} is neither in the stack file nor documented config`);
  }
  for (const [key, value] of Object.entries(chart.env)) {
    const theirs = stack.env[key];
    if (theirs === undefined) continue;
    if ((value === SECRET) !== (theirs === SECRET) && !(value === SECRET && /^[a-z]+:\/\/[^@]*$/.test(theirs))) {
      // A URL without credentials (compose's mongodb://mongo:27017) may come from the Secret in Kubernetes.
      problems.push(`${name}: ${key} is ${value === SECRET ? 'a secret' : 'a plain value'} in the chart, not in the stack file`);
    }
  }
  for (const key of ['NODE_ENV', 'HOST', 'PORT']) {
    if (chart.env[key] !== stack.env[key]) problems.push(`${name}: ${key}=${chart.env[key]}, the stack file says ${stack.env[key]}`);
  }
  for (const upstream of registry.services.filter((s) => s.urlEnv)) {
    if (name !== registry.gateway.name) continue;
    const url = (env: Record<string, string>) => env[upstream.urlEnv!]?.replace(`//${FULLNAME}-`, '//');
    if (url(chart.env) !== url(stack.env))
      problems.push(
        `${name}: ${upstream.urlEnv}=${chart.env[upstream.urlEnv!] ?? '(unset)'}, the stack file's ${stack.env[upstream.urlEnv!] ?? '(unset)'}`,
      );
  }

  const [a, b] = [chart.liveness, stack.liveness];
  if (!a || !b) problems.push(`${name}: liveness ${a ? '' : 'missing in the chart'}${b ? '' : 'missing in the stack file'}`);
  else {
    for (const key of ['path', 'periodSeconds', 'timeoutSeconds', 'failureThreshold'] as const) {
      if (a[key] !== b[key]) problems.push(`${name}: liveness ${key} ${a[key]}, the stack file's ${b[key]}`);
    }
    if (a.startSeconds < b.startSeconds) problems.push(`${name}: starts get ${a.startSeconds} s, the stack file gives ${b.startSeconds} s`);
  }
  if (chart.readiness !== '/ready') problems.push(`${name}: readiness on ${chart.readiness}, not /ready`);
  if (chart.stopGraceSeconds < stack.stopGraceSeconds)
    problems.push(`${name}: ${chart.stopGraceSeconds} s to stop after SIGTERM, the stack file gives ${stack.stopGraceSeconds} s`);
  return problems;
}

/**
 * Environment keys a stack file sets that the chart leaves to the operator's values: the fleet's
 * load balancer is part of its stack (so the stack names it as the gateway's trusted proxy); in
 * Kubernetes the balancer is the cluster's ingress, which only the operator knows.
 */
const STACK_ONLY: Record<string, Record<string, string[]>> = { 'deploy/swarm/stack.yml': { gateway: ['TRUSTED_PROXIES'] } };

function compare(rendered: Rendered, stackText: string, registry: Registry, file = 'docker-compose.yml'): string[] {
  const chart = chartShapes(rendered);
  const stack = stackShapes(loadStack(stackText), registry);
  for (const [name, keys] of Object.entries(STACK_ONLY[file] ?? {})) for (const key of keys) delete stack[name]?.env[key];
  const names = entriesOf(registry).map((e) => e.name);
  const strays = Object.keys(chart).filter((name) => !names.includes(name));
  return [
    ...names.flatMap((name) => shapeProblems(name, chart[name], stack[name], registry)),
    ...strays.map((n) => `${n}: a Deployment the registry does not list`),
  ];
}

const registry = readRegistry();
let rendered: Rendered;
beforeAll(() => {
  rendered = render();
});

describe.each(STACK_FILES)('the chart against %s, through services.json', (file) => {
  test('every registry entry has the same image, environment keys, port, liveness check and stop time', () => {
    expect(compare(rendered, readRepoFile(file), registry, file)).toEqual([]);
  });

  test('the comparison names what a chart change would break', () => {
    const broken = structuredClone(rendered);
    const deployment = ofKind(broken, 'Deployment').find((d) => d.metadata.name === `${FULLNAME}-identity`)!;
    const container = deployment.spec.template.spec.containers[0];
    container.env = container.env.filter((e: { name: string }) => e.name !== 'AMQP_URL');
    container.livenessProbe.httpGet.path = '/ready';
    container.ports[0].containerPort = 9101;
    container.image = 'registry.example.com/restgate-identity-old:0.1.0';
    deployment.spec.template.spec.terminationGracePeriodSeconds = 5;

    const grace = stackShapes(loadStack(readRepoFile(file)), registry).identity!.stopGraceSeconds;
    expect(compare(broken, readRepoFile(file), registry, file)).toEqual([
      'identity: image restgate-identity-old, the stack file runs restgate-identity',
      "identity: port 9101, the stack file's 9001",
      'identity: AMQP_URL is missing from the Deployment',
      "identity: liveness path /ready, the stack file's /health",
      `identity: 0 s to stop after SIGTERM, the stack file gives ${grace} s`,
    ]);
  });
});

describe('each Deployment against its own config schema', () => {
  test.each(entriesOf(registry).map((e) => [e.name, e.dir]))(
    '%s: its environment is one its schema accepts, every key known',
    async (name, dir) => {
      const shape = chartShapes(rendered)[name]!;
      // The Secret's values, stood in for: what a user's Secret would hold.
      const stand = (key: string) =>
        ({
          MONGODB_URL: 'mongodb://mongo:27017',
          AMQP_URL: 'amqp://u:p@rabbitmq:5672',
          REDIS_URL: 'redis://redis:6379',
          SMTP_URL: 'smtp://mail:25',
        })[key] ?? `${key.toLowerCase()}-stand-in-secret-0123456789abcdef`;
      const env = Object.fromEntries(Object.entries(shape.env).map(([k, v]) => [k, v === SECRET ? stand(k) : v]));
      // Social login keys are optional secrets that need their id (identity's schema checks the pair).
      for (const key of ['FACEBOOK_APP_SECRET', 'GITHUB_CLIENT_SECRET']) delete env[key];

      const result = checkEnvironment(await loadConfigSchema(path.join(ROOT, dir)), env);

      expect(result.problems).toEqual([]);
      expect(result.value).toMatchObject({ NODE_ENV: 'production', HOST: '0.0.0.0', PORT: shape.port });
    },
  );
});

describe('the chart exposes the gateway only', () => {
  test("each component has a ClusterIP Service on its registry port; only the gateway's may be set otherwise", () => {
    const services = servicePorts(
      render({ set: ['components.gateway.service.type=LoadBalancer', 'components.identity.service.type=LoadBalancer'] }),
    );

    for (const entry of entriesOf(registry)) expect(services[entry.name]?.port).toBe(entry.port);
    expect(
      Object.entries(services)
        .filter(([, s]) => s.type !== 'ClusterIP')
        .map(([name]) => name),
    ).toEqual([registry.gateway.name]);
  });
});

describe('a resource the generator adds', () => {
  // What `npm run generate -- resource blog-posts` writes to services.json and docker-compose.yml.
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { namesOf } = require('../../scripts/generator/names.cjs');
  const { entryFor, nextFreePort } = require('../../scripts/generator/registry.cjs');
  const { addToCompose } = require('../../scripts/generator/edits.cjs');
  /* eslint-enable @typescript-eslint/no-require-imports */
  const names = namesOf('blog-posts');
  const port = nextFreePort(registry) as number;
  const generated: Registry = { ...registry, services: [...registry.services, entryFor(names, port)] };
  const composeText = addToCompose(readRepoFile('docker-compose.yml'), { names, port }, 'docker-compose.yml') as string;

  let chart: Rendered;
  beforeAll(() => {
    chart = render({ chartDir: chartWithRegistry(generated, 'generated') });
  });

  test('gets its Deployment, Service, PodDisruptionBudget, HPA and NetworkPolicy from the registry alone', () => {
    for (const kind of ['Deployment', 'Service', 'PodDisruptionBudget', 'HorizontalPodAutoscaler', 'NetworkPolicy']) {
      expect(ofKind(chart, kind).map((o) => o.metadata.name)).toContain(`${FULLNAME}-blog-posts`);
    }
  });

  test('the gateway learns its URL and may reach it; the generated compose entry and the chart agree', () => {
    expect(chartShapes(chart)[registry.gateway.name]!.env.BLOG_POSTS_URL).toBe(`http://${FULLNAME}-blog-posts:${port}`);
    const gatewayPolicy = ofKind(chart, 'NetworkPolicy').find((p) => p.metadata.name === `${FULLNAME}-${registry.gateway.name}`)!;
    expect(gatewayPolicy.spec.egress.flatMap((r: { ports: Array<{ port: number }> }) => r.ports.map((p) => p.port))).toContain(port);

    expect(compare(chart, composeText, generated)).toEqual([]);
  });

  test('passes the policy', () => {
    expect(policyViolations(chart, generated)).toEqual([]);
  });

  test('when the chart and a stack file disagree on the components, then each side names what it lacks', () => {
    expect(compare(chart, readRepoFile('docker-compose.yml'), generated)).toEqual([
      'gateway: BLOG_POSTS_URL is neither in the stack file nor documented config',
      `gateway: BLOG_POSTS_URL=http://${FULLNAME}-blog-posts:${port}, the stack file's (unset)`,
      'blog-posts: not in the stack file',
    ]);
    expect(compare(rendered, composeText, generated)).toEqual([
      'gateway: BLOG_POSTS_URL is missing from the Deployment',
      `gateway: BLOG_POSTS_URL=(unset), the stack file's http://blog-posts:${port}`,
      'blog-posts: no Deployment in the chart',
    ]);
  });
});

test('the chart reads the registry at the repository root (files/services.json links to it)', () => {
  const link = path.join(ROOT, 'deploy/helm/restgate/files/services.json');
  expect(fs.lstatSync(link).isSymbolicLink()).toBe(true);
  expect(fs.realpathSync(link)).toBe(path.join(ROOT, 'services.json'));
});
