'use strict';
// What the generator reads from the repository before it writes: which names and ports are taken,
// and the dependency versions the other services use.

const fs = require('node:fs');
const path = require('node:path');

const read = (root, rel) => {
  try {
    return fs.readFileSync(path.join(root, rel), 'utf8');
  } catch (err) {
    if (err.code === 'ENOENT') return null;
    throw err;
  }
};

const FILES = {
  policy: 'gateway/src/policy.ts',
  gatewayConfig: 'gateway/src/config.ts',
  stack: 'scripts/lib/stack.cjs',
  compose: 'docker-compose.yml',
  tsconfig: 'tsconfig.json',
  lock: 'package-lock.json',
  hiddenLock: 'node_modules/.package-lock.json',
  envExample: '.env.example',
};

function serviceDirs(root) {
  const dir = path.join(root, 'services');
  return fs.existsSync(dir) ? fs.readdirSync(dir).filter((d) => fs.statSync(path.join(dir, d)).isDirectory()) : [];
}

/** The first path segment of every route the gateway knows, with the upstream serving it. */
function routedSegments(policyText) {
  const segments = new Map();
  for (const m of (policyText ?? '').matchAll(/path: '\/([^/']+)[^']*', level: '[^']+', upstream: '([^']+)'/g)) segments.set(m[1], m[2]);
  return segments;
}

/** The keys of the gateway's UPSTREAMS. */
function upstreamKeys(policyText) {
  const block = /export const UPSTREAMS = \{([\s\S]*?)\n\}/.exec(policyText ?? '');
  if (!block) return [];
  return [...block[1].matchAll(/^\s*'?([a-z0-9-]+)'?\s*:/gm)].map((m) => m[1]);
}

/** Every port the stack uses: defaults in configs, stack.cjs, compose, and the gateway's upstream URLs. */
function usedPorts(root) {
  const ports = new Set([9000]);
  const add = (text, re) => {
    for (const m of (text ?? '').matchAll(re)) ports.add(Number(m[1]));
  };
  add(read(root, FILES.stack), /defaultPort:\s*(\d+)/g);
  add(read(root, FILES.compose), /PORT:\s*'?(\d+)'?/g);
  add(read(root, FILES.gatewayConfig), /127\.0\.0\.1:(\d+)/g);
  for (const dir of ['gateway', ...serviceDirs(root).map((d) => `services/${d}`)]) {
    add(read(root, `${dir}/src/config.ts`), /\.port\(\)\s*\.default\((\d+)\)/g);
  }
  return ports;
}

function nextFreePort(root) {
  return Math.max(...usedPorts(root)) + 1;
}

const DEFAULT_VERSIONS = {
  dependencies: { '@restgate/shared': '^0.1.0', express: '^5.3.0', joi: '^18.3.2', mongodb: '^6.22.0' },
  devDependencies: { '@types/express': '^5.0.6' },
};

/** The versions a generated package depends on: the ones the other workspaces already use. */
function dependencyVersions(root) {
  const seen = {};
  for (const dir of ['gateway', ...serviceDirs(root).map((d) => `services/${d}`)]) {
    const text = read(root, `${dir}/package.json`);
    if (!text) continue;
    try {
      const pkg = JSON.parse(text);
      for (const deps of [pkg.dependencies, pkg.devDependencies])
        for (const [name, range] of Object.entries(deps ?? {})) seen[name] ??= range;
    } catch {
      // a broken package.json elsewhere is not this command's problem
    }
  }
  const pick = (defaults) => Object.fromEntries(Object.entries(defaults).map(([name, range]) => [name, seen[name] ?? range]));
  return { dependencies: pick(DEFAULT_VERSIONS.dependencies), devDependencies: pick(DEFAULT_VERSIONS.devDependencies) };
}

module.exports = { FILES, read, serviceDirs, routedSegments, upstreamKeys, usedPorts, nextFreePort, dependencyVersions };
