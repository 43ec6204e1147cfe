/**
 * The swarm stack file (deploy/swarm/stack.yml) against docker-compose.yml: it is what
 * scripts/fleet/stack-file.cjs makes from compose today, and it runs the same services, images,
 * environment keys and checks, with the fleet's rules (every service dnsrr, only the balancer
 * published, start-first rolling updates, a drain longer than the balancer's check, the broker as
 * a cluster every service knows all nodes of).
 */
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { ROOT, readRepoFile } from './support/stack';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const stackModule = require('../../scripts/fleet/stack-file.cjs') as {
  STACK_FILE: string;
  DEFAULT_REPLICAS: number;
  RABBITMQ_NODES: number;
  readCompose(text?: string): Compose;
  renderStack(compose?: Compose): string;
  fleetStack(compose?: Compose): Compose;
};

type Service = Record<string, any>;
interface Compose {
  services: Record<string, Service>;
  [key: string]: any;
}

const compose = stackModule.readCompose();
/** The Dockerfile's HEALTHCHECK, as a compose healthcheck. */
const dockerfileCheck = (() => {
  const line = readRepoFile('Dockerfile').replace(/\\\n\s*/g, ' ');
  const m = /^HEALTHCHECK (.*?) CMD (\[.*\])$/m.exec(line);
  if (!m) throw new Error('no HEALTHCHECK in the Dockerfile');
  const flags = Object.fromEntries([...m[1]!.matchAll(/--([a-z-]+)=(\S+)/g)].map((f) => [f[1]!, f[2]!]));
  return {
    test: ['CMD', ...(JSON.parse(m[2]!) as string[])],
    interval: flags.interval,
    timeout: flags.timeout,
    retries: Number(flags.retries),
    start_period: flags['start-period'],
  };
})();
const stack = YAML.parse(readRepoFile('deploy/swarm/stack.yml')) as Compose;
const built = Object.keys(compose.services).filter((s) => compose.services[s]!.build);
const rabbits = Array.from({ length: stackModule.RABBITMQ_NODES }, (_, i) => `rabbitmq-${i + 1}`);
const ms = (duration: string) => {
  const m = /^(\d+)(ms|s|m)$/.exec(duration);
  if (!m) throw new Error(`not a duration: ${duration}`);
  return Number(m[1]) * { ms: 1, s: 1000, m: 60_000 }[m[2] as 'ms' | 's' | 'm'];
};

test('the stack file is what scripts/fleet/stack-file.cjs makes from docker-compose.yml (run `npm run fleet -- stack`)', () => {
  expect(readRepoFile('deploy/swarm/stack.yml')).toBe(stackModule.renderStack());
});

test('every service compose builds runs in the fleet on its image, with the same environment keys (and the drain delay)', () => {
  for (const name of built) {
    const fleet = stack.services[name];
    expect(fleet).toBeDefined();
    expect(fleet!.image).toBe(`\${RESTGATE_IMAGE_PREFIX:-}restgate-${name}:\${RESTGATE_TAG:-latest}`);
    const extra = name === 'gateway' ? ['DRAIN_DELAY_MS', 'TRUSTED_PROXIES'] : ['DRAIN_DELAY_MS'];
    expect(Object.keys(fleet!.environment).sort()).toEqual(
      [...new Set([...Object.keys(compose.services[name]!.environment), ...extra])].sort(),
    );
    // The liveness check of the image (the Dockerfile's), which swarm can't read without a build.
    expect(fleet!.healthcheck).toEqual(dockerfileCheck);
    expect(fleet!.init).toBe(true);
  }
});

test('the data tier runs compose’s images and checks; the broker is a cluster of nodes on compose’s image', () => {
  for (const name of ['mongo', 'redis', 'mailpit']) {
    expect(stack.services[name]!.image).toBe(compose.services[name]!.image);
    expect(stack.services[name]!.healthcheck).toEqual(compose.services[name]!.healthcheck);
  }
  for (const node of rabbits) {
    expect(stack.services[node]!.image).toBe(compose.services.rabbitmq!.image);
    expect(stack.services[node]!.healthcheck).toEqual(compose.services.rabbitmq!.healthcheck);
    expect(stack.services[node]!.hostname).toBe(node);
  }
  // One seed: every node's list names rabbitmq-1 alone (so nodes starting together form one cluster).
  const conf = fs.readFileSync(path.join(ROOT, 'deploy/swarm/rabbitmq.conf'), 'utf8');
  expect([...conf.matchAll(/^cluster_formation\.classic_config\.nodes\.\d+ = (\S+)$/gm)].map((m) => m[1])).toEqual([`rabbit@${rabbits[0]}`]);
  // Nothing of compose is left out but the one broker the cluster replaces.
  expect(Object.keys(compose.services).filter((s) => !stack.services[s])).toEqual(['rabbitmq']);
});

test('every service that talks to the broker knows every node of the cluster', () => {
  for (const name of built.filter((s) => compose.services[s]!.environment.AMQP_URL)) {
    const urls = String(stack.services[name]!.environment.AMQP_URL).split(',');
    expect(urls.map((u) => /@([a-z0-9-]+):5672$/.exec(u)?.[1])).toEqual(rabbits);
  }
});

test('only the balancer publishes a port (9000, host mode); every service is found by DNS (no virtual IP: no IPVS needed)', () => {
  const published = Object.entries(stack.services).filter(([, s]) => s.ports);
  expect(published.map(([name]) => name)).toEqual(['lb']);
  expect(stack.services.lb!.ports).toEqual([{ target: 9000, published: 9000, protocol: 'tcp', mode: 'host' }]);
  for (const [name, s] of Object.entries(stack.services)) expect([name, s.deploy.endpoint_mode]).toEqual([name, 'dnsrr']);
});

test('the Node services update one replica at a time, the new one first, and drain longer than the balancer takes to notice', () => {
  const haproxy = readRepoFile('deploy/swarm/haproxy.cfg');
  const check = /default-server check inter (\d+)ms fall (\d+)/.exec(haproxy);
  expect(check).not.toBeNull();
  const noticeMs = Number(check![1]) * Number(check![2]);
  expect(haproxy).toMatch(/option httpchk GET \/ready/);
  expect(haproxy).toMatch(/server-template gateway \d+ tasks\.gateway:9000/);
  for (const name of built) {
    const s = stack.services[name]!;
    expect(s.deploy.update_config).toMatchObject({ parallelism: 1, order: 'start-first' });
    const drain = Number(s.environment.DRAIN_DELAY_MS);
    // The gateway keeps an idle upstream connection 4 s (undici's default): a drain covers that too.
    expect(drain).toBeGreaterThan(Math.max(noticeMs, 4_000));
    // The grace period covers the drain, SHUTDOWN_TIMEOUT_MS (10 s by default) and 2 s to close the rest.
    expect(ms(s.stop_grace_period)).toBeGreaterThanOrEqual(drain + Number(s.environment.SHUTDOWN_TIMEOUT_MS ?? 10_000) + 2_000);
  }
});

test('a resource the generator adds to compose joins the fleet with no hand edit', () => {
  const withResource: Compose = structuredClone(compose);
  withResource.services['blog-posts'] = {
    ...structuredClone(compose.services.articles!),
    environment: { ...compose.services.articles!.environment, PORT: '9010' },
  };

  const fleet = stackModule.fleetStack(withResource);

  expect(fleet.services['blog-posts']).toMatchObject({
    image: '${RESTGATE_IMAGE_PREFIX:-}restgate-blog-posts:${RESTGATE_TAG:-latest}',
    environment: { PORT: '9010', DRAIN_DELAY_MS: '5000' },
    deploy: { replicas: stackModule.DEFAULT_REPLICAS, endpoint_mode: 'dnsrr' },
  });
});
