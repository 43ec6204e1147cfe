/**
 * What a component looks like to the orchestrator, read the same way from a compose-format stack
 * file (docker-compose.yml; the swarm stack file of the fleet issue, when it lands) and from the
 * rendered chart, so that the two can be compared through the registry.
 */
import type { Registry, RegistryService } from '../../../gateway/src/registry';
import { durationMs, environmentOf } from '../../static/support/compose';
import { effective } from '../../static/support/dockerfile';
import { containerEnvironment, type Stack } from '../../static/support/stack';
import { componentOf, ofKind, type K8sObject, type Rendered } from './chart';

export interface Liveness {
  path: string;
  periodSeconds: number;
  timeoutSeconds: number;
  failureThreshold: number;
  /** How long a start may take before failures count. */
  startSeconds: number;
}

export interface Shape {
  /** The image's repository, without registry host and tag. */
  image: string;
  /** Environment variable → its value, or `secret` when it comes from a secret store. */
  env: Record<string, string>;
  port: number;
  liveness: Liveness | undefined;
  /** The readiness path (the stack files leave readiness to the load balancer's check). */
  readiness: string | undefined;
  stopGraceSeconds: number;
}

export const SECRET = '(secret)';
const seconds = (text: string | undefined) => (durationMs(text) ?? NaN) / 1000;

/** The repository part of an image reference: `registry:5000/team/restgate-gateway:0.1.0` → `restgate-gateway`. */
export function repositoryOf(image: string): string {
  const withoutDigest = image.split('@')[0] as string;
  const last = withoutDigest.split('/').pop() as string;
  return last.split(':')[0] as string;
}

/** A secret-named key, or a backing service's URL (credentials inside). RATE_LIMIT_CREDENTIALS is a limit: no CREDENTIALS suffix here. */
export const isSecretKey = (key: string) =>
  /(SECRET|PASSWORD|PASS|TOKEN|PRIVATE_KEY|(^|_)KEY)$/.test(key) || ['MONGODB_URL', 'AMQP_URL', 'REDIS_URL', 'SMTP_URL'].includes(key);

/**
 * The components of a compose-format stack file that the registry lists. A service built here
 * (`build:`) runs the image compose names `<project>-<service>`; one with `image:` runs that.
 */
export function stackShapes(stack: Stack, registry: Registry): Record<string, Shape> {
  const project = String(stack.compose.name ?? 'restgate');
  const shapes: Record<string, Shape> = {};
  for (const entry of entriesOf(registry)) {
    const service = stack.compose.services[entry.name];
    if (!service) continue;
    const built = stack.built[entry.name];
    const raw = environmentOf(stack.raw.services[entry.name] ?? {});
    const env = Object.fromEntries(
      Object.entries(containerEnvironment(stack, entry.name)).map(([key, value]) => [
        key,
        isSecretKey(key) && /\$\{/.test(raw[key] ?? '') ? SECRET : (value ?? ''),
      ]),
    );
    const final = built?.recipe.stages[built.recipe.stages.length - 1];
    const check = built && final ? effective(built.recipe, final, 'HEALTHCHECK') : undefined;
    const own = service.healthcheck as
      { test?: string | string[]; interval?: string; timeout?: string; retries?: number; start_period?: string } | undefined;
    const test = own?.test ?? check?.exec ?? check?.args;
    const path = /https?:\/\/[^/'"\s]+(?::[^/'"\s]+)?(\/[a-z]+)|'(\/[a-z]+)'/.exec(JSON.stringify(test ?? ''));
    shapes[entry.name] = {
      image: service.image ? repositoryOf(String(service.image)) : `${project}-${entry.name}`,
      env,
      port: Number(env.PORT),
      liveness: test
        ? {
            path: path?.[1] ?? path?.[2] ?? '(unknown)',
            periodSeconds: seconds(own?.interval ?? check?.flags.interval ?? '30s'),
            timeoutSeconds: seconds(own?.timeout ?? check?.flags.timeout ?? '30s'),
            failureThreshold: Number(own?.retries ?? check?.flags.retries ?? 3),
            startSeconds: seconds(own?.start_period ?? check?.flags['start-period'] ?? '0s'),
          }
        : undefined,
      readiness: undefined,
      stopGraceSeconds: seconds(service.stop_grace_period ?? '10s'),
    };
  }
  return shapes;
}

interface Probe {
  httpGet?: { path: string; port: string | number };
  periodSeconds?: number;
  timeoutSeconds?: number;
  failureThreshold?: number;
  initialDelaySeconds?: number;
}

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string } };
}

/** The Deployments of a rendered chart, by component. */
export function chartShapes(rendered: Rendered): Record<string, Shape> {
  const shapes: Record<string, Shape> = {};
  for (const deployment of ofKind(rendered, 'Deployment')) {
    const pod = deployment.spec.template.spec;
    const container = pod.containers[0] as { image: string; env: EnvVar[]; ports: Array<{ containerPort: number }> } & Record<
      string,
      Probe
    >;
    const liveness = container.livenessProbe;
    const startup = container.startupProbe;
    const preStop = (container as { lifecycle?: { preStop?: { sleep?: { seconds: number } } } }).lifecycle?.preStop?.sleep?.seconds ?? 0;
    shapes[componentOf(deployment) as string] = {
      image: repositoryOf(container.image),
      env: Object.fromEntries(container.env.map((e) => [e.name, e.valueFrom?.secretKeyRef ? SECRET : (e.value ?? '')])),
      port: container.ports[0]!.containerPort,
      liveness: liveness?.httpGet
        ? {
            path: liveness.httpGet.path,
            periodSeconds: liveness.periodSeconds ?? 10,
            timeoutSeconds: liveness.timeoutSeconds ?? 1,
            failureThreshold: liveness.failureThreshold ?? 3,
            startSeconds: startup ? (startup.periodSeconds ?? 10) * (startup.failureThreshold ?? 3) : (liveness.initialDelaySeconds ?? 0),
          }
        : undefined,
      readiness: container.readinessProbe?.httpGet?.path,
      stopGraceSeconds: (pod.terminationGracePeriodSeconds ?? 30) - preStop,
    };
  }
  return shapes;
}

export const entriesOf = (registry: Registry): RegistryService[] => [registry.gateway, ...registry.services];

/** The Service in front of each component, by component. */
export function servicePorts(rendered: Rendered): Record<string, { type: string; port: number; name: string }> {
  return Object.fromEntries(
    ofKind(rendered, 'Service').map((s: K8sObject) => [
      componentOf(s) as string,
      { type: s.spec.type ?? 'ClusterIP', port: s.spec.ports[0].port as number, name: s.metadata.name },
    ]),
  );
}
