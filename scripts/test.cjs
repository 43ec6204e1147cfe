#!/usr/bin/env node
'use strict';
// `npm test`: install when needed → lint → build → type-check (tests and scripts included) → every jest
// project (unit, integration, contract; jest's global setup provides MongoDB and RabbitMQ).
// Stops at the first failing step with its exit code. Node built-ins only (runs before install).

const fs = require('node:fs');
const { CHROMIUM_PATH, ensureInstalled, runBin, StepError } = require('./lib/install.cjs');
const { provisionBacking } = require('./lib/backing.cjs');

const STEPS = [
  { title: 'install', run: () => ensureInstalled({ build: false, log }).then(() => 0) },
  { title: 'system packages: PostgreSQL, RabbitMQ, Redis, Chromium (installed when missing)', run: provisionSystem },
  { title: 'lint: eslint .', run: () => runBin('eslint', ['.']) },
  { title: 'build: tsc -b', run: () => runBin('tsc', ['-b']) },
  { title: 'type-check: tsc -p tsconfig.check.json && tsc -p scripts && tsc -p bench', run: typeCheck },
  { title: 'tests: jest --ci', run: () => runBin('jest', ['--ci']) },
];

// One apt-get step for the browser the docs-page tests drive and the servers jest's global setup
// starts (which then finds them installed).
async function provisionSystem() {
  try {
    await provisionBacking({ log, extra: fs.existsSync(CHROMIUM_PATH) ? [] : ['chromium'] });
  } catch (err) {
    log(`error: ${err.message}`);
    return 1;
  }
  if (fs.existsSync(CHROMIUM_PATH)) return 0;
  log(`${CHROMIUM_PATH} is missing: install Debian's chromium package (apt-get install chromium), as root`);
  return 1;
}

// The product with its tests, then the scripts and the benchmarks (JSDoc-typed CommonJS, each
// folder's tsconfig.json).
async function typeCheck() {
  for (const project of ['tsconfig.check.json', 'scripts', 'bench']) {
    const code = await runBin('tsc', ['-p', project]);
    if (code !== 0) return code;
  }
  return 0;
}

function log(msg) {
  process.stderr.write(`[restgate] ${msg}\n`);
}

const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

async function main() {
  const startedAt = Date.now();
  for (const [index, step] of STEPS.entries()) {
    process.stdout.write(`\n=== [${index + 1}/${STEPS.length}] ${step.title}\n`);
    const stepStartedAt = Date.now();
    let code;
    try {
      code = await step.run();
    } catch (err) {
      if (!(err instanceof StepError)) throw err;
      code = err.exitCode;
    }
    if (code !== 0) {
      process.stdout.write(`\n=== FAILED: ${step.title} (exit code ${code}) after ${seconds(Date.now() - startedAt)}\n`);
      return code;
    }
    process.stdout.write(`=== ${step.title}: ok in ${seconds(Date.now() - stepStartedAt)}\n`);
  }
  process.stdout.write(`\n=== all steps passed in ${seconds(Date.now() - startedAt)}\n`);
  return 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    log(`error: ${err.stack || err.message}`);
    process.exitCode = 1;
  },
);
