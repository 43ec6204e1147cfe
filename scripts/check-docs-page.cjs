#!/usr/bin/env node
'use strict';
// Loads the docs page in headless Chromium (Debian's package, driven by playwright-core) and checks
// that Swagger UI renders the operations of the document: every operation summary of
// <base>/openapi.json must be visible (or the ones given with --expect). Fails on a script error, a
// CSP violation, or any request that leaves the page's origin (the page must work offline).
//
//   node scripts/check-docs-page.cjs http://127.0.0.1:9000 [--expect "Create a user."]...
//        [--screenshot docs.png] [--timeout 60000] [--chromium /usr/bin/chromium]
//
// Exits 0 when the page is right, 1 otherwise; never runs longer than --timeout.

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

function parseArgs(argv) {
  /** @type {{ expect: string[], screenshot?: string, timeoutMs: number, chromium: string, base?: string }} */
  const options = { expect: [], screenshot: undefined, timeoutMs: 60_000, chromium: '/usr/bin/chromium', base: undefined };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) throw new Error(`${arg} needs a value`);
      return argv[++i];
    };
    if (arg === '--expect') options.expect.push(value());
    else if (arg === '--screenshot') options.screenshot = value();
    else if (arg === '--timeout') options.timeoutMs = Number(value());
    else if (arg === '--chromium') options.chromium = value();
    else if (!arg.startsWith('--') && !options.base) options.base = arg.replace(/\/+$/, '');
    else throw new Error(`unknown argument ${arg}`);
  }
  if (!options.base) throw new Error('usage: check-docs-page.cjs <base-url> [--expect summary]... [--screenshot file] [--timeout ms]');
  if (!Number.isFinite(options.timeoutMs) || options.timeoutMs <= 0) throw new Error('--timeout must be a positive number of ms');
  return options;
}

async function summariesOf(base) {
  const res = await fetch(`${base}/openapi.json`, { signal: AbortSignal.timeout(15_000) });
  if (!res.ok) throw new Error(`GET ${base}/openapi.json answered ${res.status}`);
  const doc = /** @type {{ paths?: Record<string, Record<string, { summary?: unknown }>> }} */ (await res.json());
  const summaries = [];
  for (const item of Object.values(doc.paths ?? {})) {
    for (const operation of Object.values(item)) if (operation && typeof operation.summary === 'string') summaries.push(operation.summary);
  }
  if (summaries.length === 0) throw new Error('the document has no operations');
  return summaries;
}

async function check(options, log) {
  const { chromium } = require('playwright-core');
  const expected = options.expect.length ? options.expect : await summariesOf(options.base);
  const origin = new URL(options.base).origin;
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'restgate-docs-chromium-'));
  const failures = [];
  let context;
  try {
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: options.chromium,
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: { width: 1280, height: 900 },
    });
    // Offline by construction: anything that is not this origin (or an inline data: URL) is refused.
    await context.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith(origin) || url.startsWith('data:')) return route.continue();
      failures.push(`the page tried to reach ${url}`);
      return route.abort();
    });
    // Chromium also logs CSP violations to the console, but the event says exactly what was refused.
    // (These functions run in the page, where globalThis is the window.)
    await context.addInitScript(() => {
      globalThis.__cspViolations = [];
      globalThis.document.addEventListener('securitypolicyviolation', (e) => {
        globalThis.__cspViolations.push(`${e.violatedDirective} refused ${e.blockedURI || 'inline'}`);
      });
    });
    const page = context.pages()[0] ?? (await context.newPage());
    page.on('pageerror', (err) => failures.push(`script error: ${err.message}`));
    page.on('console', (msg) => {
      if (msg.type() === 'error') failures.push(`console error: ${msg.text()}`);
    });
    const res = await page.goto(`${options.base}/docs`, { waitUntil: 'load' });
    if (!res || res.status() !== 200) throw new Error(`GET /docs answered ${res ? res.status() : 'nothing'}`);
    await page.locator('.opblock').first().waitFor({ state: 'visible' });
    const missing = [];
    for (const summary of expected) {
      const visible = await page
        .locator('.opblock-summary-description', { hasText: summary })
        .first()
        .isVisible()
        .catch(() => false);
      if (!visible) missing.push(summary);
    }
    if (missing.length) failures.push(`operations not shown: ${missing.map((s) => JSON.stringify(s)).join(', ')}`);
    // Opening one operation renders its parameters, schemas and highlighted examples too.
    await page.locator('.opblock-summary').first().click();
    await page.locator('.opblock-body').first().waitFor({ state: 'visible' });
    const violations = await page.evaluate(() => globalThis.__cspViolations);
    for (const violation of violations) failures.push(`CSP: ${violation}`);
    const shown = await page.locator('.opblock').count();
    log(`${shown} operations rendered; ${expected.length - missing.length}/${expected.length} expected summaries visible`);
    if (options.screenshot) {
      await page.screenshot({ path: options.screenshot, fullPage: false });
      log(`screenshot: ${options.screenshot}`);
    }
  } finally {
    if (context) await context.close().catch(() => {});
    fs.rmSync(userDataDir, { recursive: true, force: true });
  }
  return failures;
}

async function main() {
  const log = (msg) => process.stderr.write(`[docs-page] ${msg}\n`);
  let options;
  try {
    options = parseArgs(process.argv.slice(2));
  } catch (err) {
    log(err.message);
    process.exit(2);
  }
  const timer = setTimeout(() => {
    log(`no result within ${options.timeoutMs} ms`);
    process.exit(1);
  }, options.timeoutMs);
  try {
    const failures = await check(options, log);
    for (const failure of failures) log(`FAIL ${failure}`);
    log(failures.length ? 'docs page check failed' : 'docs page OK');
    process.exitCode = failures.length ? 1 : 0;
  } catch (err) {
    log(`FAIL ${err.message}`);
    process.exitCode = 1;
  } finally {
    clearTimeout(timer);
  }
}

main();
