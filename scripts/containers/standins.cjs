'use strict';
// Which local image plays each image the compose file names, when no registry is in reach, and the
// compose override file that points the stack at them. The stand-ins carry their own names
// (restgate-standin/…), so an image a user pulled under the real name is never replaced; the
// override changes nothing but image names and the Node base image's build argument.

const STANDIN_NODE_IMAGE = 'restgate-standin/node:26';

/** Repository of a real image (no tag, no docker.io/library/ prefix) → its stand-in and what it is. */
const STANDINS = {
  mongo: { image: 'restgate-standin/mongo:7-postgresql', is: 'FerretDB 1.24 on PostgreSQL 15, with a mongosh ping shim' },
  rabbitmq: { image: 'restgate-standin/rabbitmq:4-management', is: "Debian's rabbitmq-server 3.10 with the management plugin" },
  'axllent/mailpit': { image: 'restgate-standin/mailpit:v1.31', is: 'mailpit v1.27 built from its Go module' },
  redis: { image: 'restgate-standin/redis:7', is: "Debian's redis-server 7.0" },
  haproxy: { image: 'restgate-standin/haproxy:3.0', is: "Debian's haproxy 2.6 (the fleet's load balancer)" },
};

function repositoryOf(image) {
  const withoutDigest = image.split('@')[0];
  const lastSlash = withoutDigest.lastIndexOf('/');
  const colon = withoutDigest.lastIndexOf(':');
  const name = colon > lastSlash ? withoutDigest.slice(0, colon) : withoutDigest;
  return name.replace(/^(docker\.io\/)?(library\/)?/, '');
}

/**
 * The images a resolved compose model (`docker compose config --format json`) names, per service,
 * and the services it builds.
 */
function imagesOf(model) {
  const named = [];
  const built = [];
  for (const [service, spec] of Object.entries(model.services ?? {})) {
    if (spec.build) built.push(service);
    else if (spec.image) named.push({ service, image: spec.image });
  }
  return { named, built };
}

/**
 * The override (JSON, which compose reads as YAML) that runs `model` on stand-ins. Throws naming
 * every image that has no stand-in, so that a new backing service can't slip through untested.
 * @returns {{ services: Record<string, { image?: string, build?: { args: Record<string, string> } }> }}
 */
function standinOverride(model) {
  const { named, built } = imagesOf(model);
  const missing = named.filter(({ image }) => !STANDINS[repositoryOf(image)]);
  if (missing.length > 0) {
    const list = missing.map(({ service, image }) => `${service} (${image})`).join(', ');
    throw new Error(`no stand-in image for ${list}: add one to scripts/containers/standins.cjs and provision.sh`);
  }
  /** @type {Record<string, { image?: string, build?: { args: Record<string, string> } }>} */
  const services = {};
  for (const { service, image } of named) services[service] = { image: STANDINS[repositoryOf(image)].image };
  for (const service of built) services[service] = { build: { args: { NODE_IMAGE: STANDIN_NODE_IMAGE } } };
  return { services };
}

/** One line per image: what runs in its place. */
function describeStandins(model) {
  return imagesOf(model).named.map(({ service, image }) => {
    const standin = STANDINS[repositoryOf(image)];
    return `${service}: ${image} → ${standin.image} (${standin.is})`;
  });
}

module.exports = { STANDINS, STANDIN_NODE_IMAGE, describeStandins, imagesOf, repositoryOf, standinOverride };
