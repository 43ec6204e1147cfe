'use strict';
// The tools `npm run test:chart` checks the Helm chart with, installed once per user and version
// into ~/.cache/restgate/ (like FerretDB's binary), so a fresh clone reuses them:
//   helm         renders and lints the chart                     (Go module proxy, go install)
//   kubeconform  validates what it renders, offline and strict   (Go module proxy, go install)
//   conftest     holds it to the policy in deploy/helm/policy/   (Go module proxy, go install)
//   Kubernetes' JSON schemas, from PyPI's kubernetes-validate wheel (pip; no other download)
// Each is taken from an environment variable first (RESTGATE_HELM, RESTGATE_KUBECONFORM,
// RESTGATE_CONFTEST, RESTGATE_KUBE_SCHEMAS), when set. Node built-ins only.

const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { tryLock, unlock } = require('../lib/pid-lock.cjs');

/** Pinned versions; a change here builds the new one into a folder of its own. */
const GO_TOOLS = {
  helm: { module: 'helm.sh/helm/v3/cmd/helm', version: 'v3.22.0', versionArgs: ['version', '--short'] },
  kubeconform: { module: 'github.com/yannh/kubeconform/cmd/kubeconform', version: 'v0.8.0', versionArgs: ['-v'] },
  conftest: { module: 'github.com/open-policy-agent/conftest', version: 'v0.71.1', versionArgs: ['--version'] },
};
const SCHEMAS_WHEEL = { name: 'kubernetes-validate', version: '1.37.0' };
/** The Kubernetes versions the rendered chart is validated against: the oldest Chart.yaml allows, and the newest the wheel has. */
const KUBERNETES_VERSIONS = ['1.32.0', '1.37.0'];

const MINUTE = 60_000;

function cacheRoot() {
  const xdg = process.env.XDG_CACHE_HOME;
  const base = xdg && path.isAbsolute(xdg) ? xdg : path.join(os.homedir(), '.cache');
  return path.join(base, 'restgate');
}

function runs(bin, args) {
  const out = spawnSync(bin, args, { encoding: 'utf8', timeout: 30_000 });
  return out.status === 0;
}

// `go install` stamps no version into these binaries (their releases set it with -ldflags), so
// the build leaves `<module>@<version>` in a file beside the binary.
const STAMP = '.installed';
const stampOf = (tool) => `${tool.module}@${tool.version}`;
function installed(dir, bin, tool) {
  try {
    return fs.readFileSync(path.join(dir, STAMP), 'utf8').trim() === stampOf(tool) && runs(bin, tool.versionArgs);
  } catch {
    return false;
  }
}

const sleepSync = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/**
 * Runs `build` under a lock in `dir` unless `ready()` already holds; another process building the
 * same thing is waited for (up to 30 minutes) rather than raced.
 */
function onceUnderLock(dir, what, ready, build, log) {
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  const lockFile = `${dir}.lock`;
  const deadline = Date.now() + 30 * MINUTE;
  let reported = false;
  while (Date.now() < deadline) {
    if (ready()) return;
    if (tryLock(lockFile)) {
      try {
        if (!ready()) build();
        return;
      } finally {
        unlock(lockFile);
      }
    }
    if (!reported) log(`another process is installing ${what} (lock ${lockFile}); waiting for it`);
    reported = true;
    sleepSync(2000);
  }
  throw new Error(`gave up waiting for ${lockFile}`);
}

/** A Go tool: built with `go install` (one package at a time: the machines are shared) into its cache folder. */
function ensureGoTool(name, log = defaultLog) {
  const tool = GO_TOOLS[name];
  const fromEnv = process.env[`RESTGATE_${name.toUpperCase()}`];
  if (fromEnv) {
    if (!runs(fromEnv, tool.versionArgs)) throw new Error(`RESTGATE_${name.toUpperCase()}=${fromEnv} does not run`);
    return fromEnv;
  }
  const dir = path.join(cacheRoot(), `${name}-${tool.version}`);
  const bin = path.join(dir, name);
  onceUnderLock(
    dir,
    `${name} ${tool.version}`,
    () => installed(dir, bin, tool),
    () => {
      if (!whichGo()) throw new Error(`${name} ${tool.version} is not in ${dir}, and building it needs Go (https://go.dev/dl/)`);
      const started = Date.now();
      log(`building ${name} ${tool.version} once into ${dir} (go install; a few minutes)`);
      const staging = `${dir}.partial`;
      fs.rmSync(staging, { recursive: true, force: true });
      const out = spawnSync('go', ['install', '-p', '1', `${tool.module}@${tool.version}`], {
        encoding: 'utf8',
        timeout: 40 * MINUTE,
        env: { ...process.env, GOBIN: staging, GOFLAGS: `${process.env.GOFLAGS ?? ''} -buildvcs=false`.trim() },
      });
      if (out.status !== 0) throw new Error(`go install ${tool.module}@${tool.version} failed: ${out.error?.message ?? out.stderr}`);
      fs.writeFileSync(path.join(staging, STAMP), `${stampOf(tool)}\n`);
      fs.rmSync(dir, { recursive: true, force: true });
      fs.renameSync(staging, dir);
      if (!installed(dir, bin, tool)) throw new Error(`${bin}, just built, does not run`);
      log(`built ${name} ${tool.version} in ${Math.round((Date.now() - started) / 1000)} s`);
    },
    log,
  );
  return bin;
}

function whichGo() {
  return spawnSync('go', ['version'], { encoding: 'utf8' }).status === 0;
}

/**
 * Kubernetes' JSON schemas (strict: unknown fields refused) for KUBERNETES_VERSIONS, from the
 * kubernetes-validate wheel, made readable by kubeconform: the wheel's schemas point at their
 * shared definitions as `/api/_definitions.json` (a name its own resolver knows), which kubeconform
 * can only follow as a file URL, so each version's folder is copied with those references
 * rewritten. Returns the folder holding `v<version>/<kind>-<group>-<version>.json`.
 */
function ensureKubeSchemas(log = defaultLog) {
  const fromEnv = process.env.RESTGATE_KUBE_SCHEMAS;
  const hasAll = (root) => KUBERNETES_VERSIONS.every((v) => fs.existsSync(path.join(root, `v${v}`, 'deployment-apps-v1.json')));
  if (fromEnv) {
    if (!hasAll(fromEnv))
      throw new Error(`RESTGATE_KUBE_SCHEMAS=${fromEnv} lacks the schemas of Kubernetes ${KUBERNETES_VERSIONS.join(', ')}`);
    return fromEnv;
  }
  const dir = path.join(cacheRoot(), `${SCHEMAS_WHEEL.name}-${SCHEMAS_WHEEL.version}`);
  const converted = path.join(dir, 'kubeconform');
  onceUnderLock(
    dir,
    `${SCHEMAS_WHEEL.name} ${SCHEMAS_WHEEL.version}`,
    () => hasAll(converted),
    () => {
      const wheelSchemas = path.join(dir, 'kubernetes_validate', 'kubernetes-json-schema');
      if (!fs.existsSync(wheelSchemas)) installWheel(dir, log);
      for (const version of KUBERNETES_VERSIONS) {
        const from = path.join(wheelSchemas, `v${version}-local-strict`);
        if (!fs.existsSync(from))
          throw new Error(`${SCHEMAS_WHEEL.name} ${SCHEMAS_WHEEL.version} has no schemas for Kubernetes ${version}`);
        const to = path.join(converted, `v${version}`);
        const staging = `${to}.partial`;
        fs.rmSync(staging, { recursive: true, force: true });
        fs.mkdirSync(staging, { recursive: true });
        const definitions = `file://${path.join(to, '_definitions.json')}`;
        for (const file of fs.readdirSync(from).filter((f) => f.endsWith('.json'))) {
          const text = fs.readFileSync(path.join(from, file), 'utf8');
          fs.writeFileSync(path.join(staging, file), text.replaceAll('"/api/_definitions.json#', `"${definitions}#`));
        }
        fs.rmSync(to, { recursive: true, force: true });
        fs.renameSync(staging, to);
      }
    },
    log,
  );
  return converted;
}

function installWheel(dir, log) {
  log(`installing ${SCHEMAS_WHEEL.name} ${SCHEMAS_WHEEL.version} (Kubernetes' JSON schemas, ~100 MB) once into ${dir}`);
  const staging = `${dir}.partial`;
  fs.rmSync(staging, { recursive: true, force: true });
  const wheel = `${SCHEMAS_WHEEL.name}==${SCHEMAS_WHEEL.version}`;
  const out = spawnSync(
    'python3',
    ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--no-deps', '--no-compile', '--target', staging, wheel],
    { encoding: 'utf8', timeout: 10 * MINUTE, env: { ...process.env, PIP_ROOT_USER_ACTION: 'ignore' } },
  );
  if (out.status !== 0) throw new Error(`python3 -m pip install ${wheel} failed: ${out.error?.message ?? out.stderr}`);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.renameSync(staging, dir);
}

/** Every tool, installed when missing; what the chart tests read from RESTGATE_CHART_TOOLS. */
function ensureChartTools(log = defaultLog) {
  return {
    helm: ensureGoTool('helm', log),
    kubeconform: ensureGoTool('kubeconform', log),
    conftest: ensureGoTool('conftest', log),
    schemas: ensureKubeSchemas(log),
    kubernetesVersions: KUBERNETES_VERSIONS,
  };
}

function defaultLog(msg) {
  process.stderr.write(`[chart] ${msg}\n`);
}

module.exports = { ensureChartTools, ensureGoTool, ensureKubeSchemas, GO_TOOLS, KUBERNETES_VERSIONS, SCHEMAS_WHEEL };
