#!/usr/bin/env node
'use strict';
// `npm run test:chart`: the Helm chart in deploy/helm/restgate, checked without a cluster.
// Installs the npm dependencies when needed, then helm, kubeconform, conftest and Kubernetes'
// schemas (scripts/chart/tools.cjs: built or downloaded once per user into ~/.cache/restgate/),
// then runs test/chart with its own jest config: helm lint --strict; helm template with the
// default values and a production-like file; kubeconform, strict and offline, against pinned
// Kubernetes versions; conftest with deploy/helm/policy, and a values file breaking each rule;
// the rendered Deployments against docker-compose.yml through services.json.
// Node built-ins only (runs before install). Extra arguments go to jest.

const { ensureInstalled, runBin, StepError } = require('../lib/install.cjs');
const { ensureChartTools } = require('./tools.cjs');

const log = (msg) => process.stderr.write(`[chart] ${msg}\n`);

async function main() {
  const started = Date.now();
  await ensureInstalled({ build: false, log });
  const toolsStarted = Date.now();
  const tools = ensureChartTools(log);
  log(`tools ready in ${((Date.now() - toolsStarted) / 1000).toFixed(1)} s: ${Object.values(tools).flat().join(', ')}`);
  process.env.RESTGATE_CHART_TOOLS = JSON.stringify(tools);
  const code = await runBin('jest', ['--ci', '--config', 'test/chart/jest.config.js', ...process.argv.slice(2)]);
  log(`${code === 0 ? 'passed' : 'FAILED'} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return code;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    log(`error: ${err instanceof StepError ? err.message : err.stack || err.message}`);
    process.exitCode = err instanceof StepError ? err.exitCode : 1;
  },
);
