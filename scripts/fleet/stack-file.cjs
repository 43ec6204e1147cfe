// @ts-check
'use strict';
// The swarm stack file (deploy/swarm/stack.yml) is made from docker-compose.yml, never edited by
// hand: every service compose builds from this repository (the gateway, the services, and any
// resource the generator adds) becomes a replicated swarm service with the same environment,
// networks and stop time; the data tier keeps compose's images and checks; the fleet adds the load
// balancer and a RabbitMQ cluster. `npm run fleet -- stack` rewrites the file;
// test/static/fleet-stack.unit.test.ts fails when it is out of step with compose.
//
// Rules of the fleet, and why:
// - Every service is `endpoint_mode: dnsrr`: swarm's virtual IPs need IPVS, which not every
//   kernel has. Callers find replicas by DNS (the gateway's upstreams, HAProxy's `tasks.gateway`).
// - Only the load balancer publishes a port (9000, host mode); the internal network is attachable
//   so that a test can reach each replica and Mailpit from inside.
// - Rolling updates start the new replica first, one at a time, and roll back on failure. A
//   stopping replica reports /ready 503 and keeps serving for DRAIN_DELAY_MS (each answer closing
//   its connection) before it stops accepting: longer than the balancer's health check takes to
//   notice (3 × 500 ms) and than the gateway keeps an idle upstream connection (4 s).
// - The broker is a cluster of RABBITMQ_NODES nodes that find each other from a fixed list; the
//   services get every node's address and reconnect to a surviving one.

const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..', '..');
const COMPOSE_FILE = path.join(ROOT, 'docker-compose.yml');
const STACK_FILE = path.join(ROOT, 'deploy', 'swarm', 'stack.yml');

/** Replicas of each service built from this repository; a resource the generator adds gets DEFAULT_REPLICAS. */
const REPLICAS = { gateway: 3, identity: 3, articles: 2, mailer: 2 };
const DEFAULT_REPLICAS = 2;
const RABBITMQ_NODES = 3;
const DRAIN_DELAY_MS = 5_000;
/** Must cover the drain delay, SHUTDOWN_TIMEOUT_MS (10 s) and the close of the rest (2 s). */
const STOP_GRACE = '20s';
/** The load balancer's image (the official one; the fleet test runs a stand-in where no registry is in reach). */
const HAPROXY_IMAGE = 'haproxy:3.0';

const HEADER = `# GENERATED from docker-compose.yml by scripts/fleet/stack-file.cjs (npm run fleet -- stack): do not
# edit; change docker-compose.yml or that script. The fleet on Docker's swarm mode: HAProxy in
# front of the gateway replicas, the services replicated, a RabbitMQ cluster, the data tier as in
# compose. npm run fleet -- up deploys it (docs/fleet.md).
`;

/** @typedef {Record<string, any>} Json */

/** The compose file as data, YAML merge keys resolved, variables left as written. */
function readCompose(text = fs.readFileSync(COMPOSE_FILE, 'utf8')) {
  const YAML = require('yaml');
  return /** @type {Json} */ (YAML.parse(text, { merge: true }));
}

function rabbitNodes() {
  return Array.from({ length: RABBITMQ_NODES }, (_, i) => `rabbitmq-${i + 1}`);
}

/** compose's one-broker AMQP_URL, once per cluster node, comma-separated. */
function clusterAmqpUrl(url) {
  if (!/@rabbitmq:5672\b/.test(url)) throw new Error(`AMQP_URL ${url} does not name the rabbitmq service: cannot point it at the cluster`);
  return rabbitNodes()
    .map((node) => url.replace('@rabbitmq:5672', `@${node}:5672`))
    .join(',');
}

/**
 * The Dockerfile's liveness check (GET /health), stated because swarm's compose format has no
 * build to read it from; test/static/fleet-stack.unit.test.ts holds the two equal. Swarm moves a
 * rolling update on once the new replica's first check passed.
 */
function livenessCheck() {
  return {
    test: [
      'CMD',
      'node',
      '-e',
      "fetch('http://127.0.0.1:' + process.env.PORT + '/health', { signal: AbortSignal.timeout(4000) }).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))",
    ],
    interval: '10s',
    timeout: '5s',
    retries: 3,
    start_period: '20s',
  };
}

function replicated(replicas, order = 'start-first') {
  return {
    replicas,
    endpoint_mode: 'dnsrr',
    update_config: { parallelism: 1, order, failure_action: 'rollback', monitor: '5s' },
    rollback_config: { parallelism: 1, order },
    restart_policy: { condition: 'any', delay: '1s' },
  };
}

/** A service compose builds from this repository, as a swarm service. */
function nodeService(name, spec) {
  const environment = { ...spec.environment };
  if (environment.AMQP_URL) environment.AMQP_URL = clusterAmqpUrl(environment.AMQP_URL);
  environment.DRAIN_DELAY_MS = String(DRAIN_DELAY_MS);
  if (name === 'gateway') {
    // The balancer is the only proxy in front; its X-Forwarded-For names the client.
    environment.TRUSTED_PROXIES = '${TRUSTED_PROXIES:-10.77.0.0/24}';
  }
  return {
    image: `\${RESTGATE_IMAGE_PREFIX:-}restgate-${name}:\${RESTGATE_TAG:-latest}`,
    init: true,
    environment,
    // The balancer is the way in: the gateway needs no network of its own to be reached on.
    networks: (spec.networks ?? ['internal']).filter((n) => n !== 'edge'),
    healthcheck: livenessCheck(),
    stop_grace_period: STOP_GRACE,
    deploy: replicated(REPLICAS[name] ?? DEFAULT_REPLICAS),
  };
}

/** A data-tier service as compose runs it, one replica, stopped before its replacement starts. */
function dataService(spec, extra = {}) {
  const service = { ...spec };
  // Swarm restarts through `deploy`, publishes nothing of the data tier, and has no start order.
  for (const key of ['restart', 'ports', 'depends_on']) delete service[key];
  return { ...service, networks: ['internal'], ...extra, deploy: replicated(1, 'stop-first') };
}

function rabbitService(compose, node) {
  const spec = compose.services.rabbitmq;
  const environment = {
    ...spec.environment,
    // One cookie for every node and for the CLI tools the health check runs.
    RABBITMQ_ERLANG_COOKIE: '${RABBITMQ_ERLANG_COOKIE:?set RABBITMQ_ERLANG_COOKIE in .env (npm run fleet -- up generates it)}',
  };
  return {
    image: spec.image,
    // The node is rabbit@<hostname>; the cluster's list (rabbitmq.conf) names each by it.
    hostname: node,
    environment,
    configs: [{ source: 'rabbitmq_conf', target: '/etc/rabbitmq/rabbitmq.conf' }],
    volumes: [`${node}-data:/var/lib/rabbitmq`],
    networks: ['internal'],
    healthcheck: spec.healthcheck,
    deploy: replicated(1, 'stop-first'),
  };
}

/** `restgate-<file>-<first 12 hex digits of its SHA-256>`, for a file next to the stack file. */
function configName(file) {
  const { createHash } = require('node:crypto');
  const digest = createHash('sha256')
    .update(fs.readFileSync(path.join(path.dirname(STACK_FILE), file)))
    .digest('hex');
  return `restgate-${file.replace(/\./g, '-')}-${digest.slice(0, 12)}`;
}

/** The stack, as data. */
function fleetStack(compose = readCompose()) {
  const services = {};
  services.lb = {
    image: HAPROXY_IMAGE,
    configs: [{ source: 'haproxy_cfg', target: '/usr/local/etc/haproxy/haproxy.cfg' }],
    ports: [{ target: 9000, published: 9000, protocol: 'tcp', mode: 'host' }],
    networks: ['internal', 'edge'],
    deploy: replicated(1, 'stop-first'),
  };
  for (const [name, spec] of Object.entries(compose.services)) {
    if (spec.build) services[name] = nodeService(name, spec);
  }
  services.mongo = dataService(compose.services.mongo);
  services.redis = dataService(compose.services.redis);
  // Mailpit keeps 500 mails by default and drops the oldest: the fleet's tests count every one.
  services.mailpit = dataService(compose.services.mailpit, { environment: { MP_MAX_MESSAGES: '0' } });
  for (const node of rabbitNodes()) services[node] = rabbitService(compose, node);

  const volumes = { ...(compose.volumes ?? {}) };
  delete volumes['rabbitmq-data'];
  for (const node of rabbitNodes()) volumes[`${node}-data`] = null;

  return {
    version: '3.8',
    services,
    networks: {
      // A fixed subnet, so the gateway can name the balancer as its trusted proxy.
      internal: { driver: 'overlay', internal: true, attachable: true, ipam: { config: [{ subnet: '10.77.0.0/24' }] } },
      edge: { driver: 'overlay' },
      egress: { driver: 'overlay' },
    },
    volumes,
    // Swarm never changes a config in use: each is named after its content, so a changed file
    // deploys as a new config and the services using it roll over to it.
    configs: {
      haproxy_cfg: { file: './haproxy.cfg', name: configName('haproxy.cfg') },
      rabbitmq_conf: { file: './rabbitmq.conf', name: configName('rabbitmq.conf') },
    },
  };
}

/** The stack file's text. */
function renderStack(compose = readCompose()) {
  const YAML = require('yaml');
  return HEADER + YAML.stringify(fleetStack(compose), { lineWidth: 0, nullStr: '' });
}

/** Rewrites deploy/swarm/stack.yml; returns whether it changed. */
function writeStack(compose = readCompose()) {
  const text = renderStack(compose);
  const before = fs.existsSync(STACK_FILE) ? fs.readFileSync(STACK_FILE, 'utf8') : '';
  if (before === text) return false;
  fs.mkdirSync(path.dirname(STACK_FILE), { recursive: true });
  fs.writeFileSync(STACK_FILE, text);
  return true;
}

module.exports = {
  DEFAULT_REPLICAS,
  RABBITMQ_NODES,
  REPLICAS,
  STACK_FILE,
  clusterAmqpUrl,
  fleetStack,
  rabbitNodes,
  readCompose,
  renderStack,
  writeStack,
};

if (require.main === module) {
  console.log(writeStack() ? `wrote ${path.relative(ROOT, STACK_FILE)}` : `${path.relative(ROOT, STACK_FILE)} is up to date`);
}
