// @ts-check
'use strict';
// Whether a deployed fleet stack is ready, and what `waitReady` and the scenarios read of it: the
// services' replicas and containers, each Node replica's /ready seen from inside the stack's
// network, the RabbitMQ nodes joined in one cluster holding every quorum queue on each, and the
// load balancer. Everything here runs `docker` against an engine that is a swarm manager.

const { exec, Failure, MINUTE, sleep } = require('../containers/engine.cjs');
const { STANDIN_NODE_IMAGE } = require('../containers/standins.cjs');
const { fleetStack, rabbitNodes } = require('./stack-file.cjs');

const REAL_NODE_IMAGE = 'node:26-trixie-slim';

/** `docker service ls` of the stack: name → { running, desired }. */
async function serviceReplicas(stackName) {
  const out = await exec(
    'docker',
    ['service', 'ls', '--filter', `label=com.docker.stack.namespace=${stackName}`, '--format', '{{.Name}} {{.Replicas}}'],
    {
      timeoutMs: 30_000,
    },
  );
  const replicas = {};
  for (const line of out.trim().split('\n').filter(Boolean)) {
    const [name, counts] = line.split(' ');
    const [running, desired] = counts.split('/').map((n) => parseInt(n, 10));
    replicas[name.slice(stackName.length + 1)] = { running, desired };
  }
  return replicas;
}

/** The containers of a service's running tasks on this node. */
async function containersOf(stackName, service) {
  const out = await exec('docker', ['ps', '-q', '--filter', `label=com.docker.swarm.service.name=${stackName}_${service}`], {
    timeoutMs: 30_000,
  });
  return out.trim().split('\n').filter(Boolean);
}

/** Runs a Node script in a throw-away container on the stack's internal network; resolves with its stdout. */
async function onInternalNetwork(stackName, script, { timeoutMs = MINUTE, images = 'standin' } = {}) {
  const image = images === 'real' ? REAL_NODE_IMAGE : STANDIN_NODE_IMAGE;
  return exec('docker', ['run', '--rm', '--network', `${stackName}_internal`, image, 'node', '-e', script], { timeoutMs });
}

/** A script for `onInternalNetwork`: each replica of each service (tasks.<name>), its /ready. */
function readinessScript(services) {
  return `
const dns = require('node:dns').promises;
const services = ${JSON.stringify(services)};
(async () => {
  const out = {};
  for (const [name, port] of services) {
    const addresses = await dns.resolve4('tasks.' + name).catch(() => []);
    out[name] = await Promise.all(addresses.map((a) =>
      fetch('http://' + a + ':' + port + '/ready', { signal: AbortSignal.timeout(3000) }).then((r) => r.status, () => 0)));
  }
  console.log(JSON.stringify(out));
})();`;
}

/** The Node services of the stack and their ports. */
function nodeServices(stack = fleetStack()) {
  return Object.entries(stack.services)
    .filter(([, s]) => String(s.image).includes('restgate-'))
    .map(([name, s]) => [name, Number(s.environment.PORT)]);
}

/**
 * Waits until every service runs its desired replicas, every Node replica's /ready answers 200, the
 * RabbitMQ nodes form one cluster holding every quorum queue on each node, and the balancer answers.
 */
async function waitReady({ stackName, images, log, timeoutMs = 10 * MINUTE }) {
  const deadline = Date.now() + timeoutMs;
  const stack = fleetStack();
  const services = nodeServices(stack);
  let last = '';
  for (;;) {
    const replicas = await serviceReplicas(stackName).catch(() => ({}));
    const short = Object.keys(stack.services).filter(
      (s) => !replicas[s] || replicas[s].running < replicas[s].desired || replicas[s].desired === 0,
    );
    let notReady = [];
    if (short.length === 0) {
      const ready = JSON.parse(await onInternalNetwork(stackName, readinessScript(services), { images }).catch(() => '{}'));
      notReady = services
        .filter(([name]) => {
          const statuses = ready[name] ?? [];
          return statuses.length < replicas[name].desired || statuses.some((s) => s !== 200);
        })
        .map(([name]) => `${name} ${JSON.stringify(ready[name] ?? [])}`);
    }
    const waiting = short.length ? `replicas starting: ${short.join(', ')}` : notReady.length ? `not ready: ${notReady.join(', ')}` : '';
    if (!waiting) break;
    if (waiting !== last) log(`waiting: ${waiting}`);
    last = waiting;
    if (Date.now() > deadline) throw new Failure(`the fleet was not ready within ${timeoutMs / 1000} s (${waiting})`);
    await sleep(2000);
  }
  await clusterQueues({ stackName, log, deadline });
  for (;;) {
    const ok = await fetch('http://127.0.0.1:9000/ready', { signal: AbortSignal.timeout(3000) }).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline) throw new Failure('the load balancer did not answer /ready on 127.0.0.1:9000');
    await sleep(1000);
  }
  log('every replica is ready; the load balancer answers on http://127.0.0.1:9000');
}

/** The JSON a RabbitMQ CLI printed (after any warning it writes first), or undefined. */
function jsonIn(output) {
  const at = output.search(/^[[{]/m);
  try {
    return at < 0 ? undefined : JSON.parse(output.slice(at));
  } catch {
    return undefined;
  }
}

/** rabbitmqctl-family command on a broker node's container. */
async function rabbit(stackName, node, args, timeoutMs = MINUTE) {
  const [container] = await containersOf(stackName, node);
  if (!container) throw new Failure(`no running container for ${node}`);
  return exec('docker', ['exec', container, ...args], { timeoutMs });
}

/** A node's own view of its cluster: the nodes running in it, none when its CLI does not answer. */
async function runningNodes(stackName, node) {
  const status = await rabbit(stackName, node, ['rabbitmqctl', 'cluster_status', '--formatter', 'json']).catch(() => '{}');
  return jsonIn(status)?.running_nodes ?? [];
}

/**
 * Waits for every broker node to be in one cluster, then puts each quorum queue on every node: a
 * queue declared while a node was still joining has fewer members, and would not survive the loss
 * of the one it is on. A node found running in a cluster of its own (it held the peer discovery
 * lock while the seed waited for it, and gave up: deploy/swarm/rabbitmq.conf) is reset and joined
 * to the seed's; it has carried no mail yet, since the fleet is not ready until this is done.
 */
async function clusterQueues({ stackName, log, deadline }) {
  const nodes = rabbitNodes();
  const seed = `rabbit@${nodes[0]}`;
  for (;;) {
    const running = await runningNodes(stackName, nodes[0]);
    if (nodes.every((n) => running.includes(`rabbit@${n}`))) break;
    if (running.includes(seed)) {
      for (const node of nodes.filter((n) => !running.includes(`rabbit@${n}`))) {
        const own = await runningNodes(stackName, node);
        if (own.length === 0 || own.includes(seed)) continue; // still starting, or joining
        log(`RabbitMQ: ${node} started a cluster of its own (${own.join(', ')}): joining it to ${seed}'s`);
        for (const args of [['stop_app'], ['reset'], ['join_cluster', seed], ['start_app']]) await rabbit(stackName, node, ['rabbitmqctl', ...args]);
      }
    }
    if (Date.now() > deadline) throw new Failure(`the RabbitMQ nodes did not form one cluster (running: ${running.join(', ') || 'none'})`);
    await sleep(2000);
  }
  for (const node of nodes) await rabbit(stackName, nodes[0], ['rabbitmq-queues', 'grow', `rabbit@${node}`, 'all']);
  log(`RabbitMQ: ${nodes.length} nodes in one cluster; every quorum queue on each`);
}

module.exports = {
  REAL_NODE_IMAGE,
  clusterQueues,
  containersOf,
  jsonIn,
  nodeServices,
  onInternalNetwork,
  rabbit,
  serviceReplicas,
  waitReady,
};
