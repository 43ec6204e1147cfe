// @ts-check
'use strict';
// The FerretDB binary, built once per machine and version into the user's cache (Go is the only
// way to get it on Debian). Node built-ins only: this runs before `npm install`.
//
// The binary the stack runs carries the patches in ferretdb-patches/: filters, sorts, limits and
// counts done by PostgreSQL where FerretDB v1 would read every document (docs/operations.md says
// what it implies). Its cache folder is named after the patches' digest, so a changed patch is
// built once on every machine. The stock binary is built too, on demand, for the differential test and the bench.

const { createHash } = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { tryLock, unlock } = require('./pid-lock.cjs');
const { sleep } = require('./ports.cjs');
const { run, which } = require('./processes.cjs');

/** @typedef {import('./processes.cjs').Log} Log */

const FERRET_VERSION = 'v1.24.2';
const FERRET_MODULE = 'github.com/FerretDB/FerretDB';

const PATCH_DIR = path.join(__dirname, 'ferretdb-patches');

/** The patches, in the order they apply. */
function patchFiles() {
  return fs
    .readdirSync(PATCH_DIR)
    .filter((name) => name.endsWith('.patch'))
    .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }))
    .map((name) => path.join(PATCH_DIR, name));
}

/** @typedef {'patched' | 'stock'} FerretFlavour */

/** The patches' short digest (names and contents), which names the patched build. */
function patchDigest() {
  const hash = createHash('sha256');
  for (const file of patchFiles()) hash.update(path.basename(file)).update('\0').update(fs.readFileSync(file)).update('\0');
  return hash.digest('hex').slice(0, 12);
}

/** @param {FerretFlavour} [flavour] */
function ferretCacheDir(flavour = 'patched') {
  const xdg = process.env.XDG_CACHE_HOME;
  const base = xdg && path.isAbsolute(xdg) ? xdg : path.join(os.homedir(), '.cache');
  const name = flavour === 'stock' ? `ferretdb-${FERRET_VERSION}` : `ferretdb-${FERRET_VERSION}-pushdown-${patchDigest()}`;
  return path.join(base, 'restgate', name);
}

/** @param {string} bin */
async function ferretRuns(bin) {
  try {
    const out = await run(bin, ['--version'], { timeoutMs: 15000 });
    return out.includes(`version: ${FERRET_VERSION}`);
  } catch {
    return false;
  }
}

/**
 * Returns the cached binary, building it first when needed; null when it is missing and no Go.
 * @param {Log} log @param {FerretFlavour} [flavour]  the stack's (patched) or FerretDB's own
 * @returns {Promise<string | null>}
 */
async function ensureFerretBinary(log, flavour = 'patched') {
  const cacheDir = ferretCacheDir(flavour);
  const bin = path.join(cacheDir, 'ferretdb');
  const lockFile = path.join(cacheDir, 'build.lock');
  let reported = false;
  const deadline = Date.now() + 30 * 60 * 1000;

  while (Date.now() < deadline) {
    if (await ferretRuns(bin)) return bin;
    if (!which('go')) return null;
    fs.mkdirSync(cacheDir, { recursive: true });
    if (tryLock(lockFile)) {
      try {
        // Another run may have finished between our check and taking the lock.
        if (await ferretRuns(bin)) return bin;
        if (fs.existsSync(bin)) log(`cached ${bin} does not run; building it again`);
        await buildFerret(bin, flavour, log);
        return bin;
      } finally {
        unlock(lockFile);
      }
    }
    if (!reported) {
      log(`another process is building FerretDB ${FERRET_VERSION} (lock ${lockFile}); waiting for it`);
      reported = true;
    }
    await sleep(2000);
  }
  throw new Error(`gave up waiting for the FerretDB build holding ${lockFile}`);
}

// `go install ...@v1.24.2` fails here (the proxy refuses the deprecation lookup it makes), so we
// fetch the module through a throwaway module instead. And because the module zip lacks the
// generated build/version/version.txt, a binary built straight from the module cache panics at
// start; we build from a copy with that file written in.
/** @param {string} bin @param {FerretFlavour} flavour @param {Log} log */
async function buildFerret(bin, flavour, log) {
  const started = Date.now();
  log(`building FerretDB ${FERRET_VERSION} (${flavour}) once into ${path.dirname(bin)}, takes a few minutes`);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'restgate-ferretdb-'));
  const tmpBin = `${bin}.tmp`;
  try {
    /** @param {string[]} args @param {string} cwd */
    const go = (args, cwd) => run('go', args, { cwd, env: process.env });
    await go(['mod', 'init', 'fbbuild'], tmp);
    log('fetching FerretDB sources and dependencies');
    await go(['get', `${FERRET_MODULE}/cmd/ferretdb@${FERRET_VERSION}`], tmp);
    const moduleDir = (await go(['list', '-m', '-f', '{{.Dir}}', FERRET_MODULE], tmp)).trim();

    const src = path.join(tmp, 'src');
    fs.cpSync(moduleDir, src, { recursive: true });
    makeWritable(src); // the module cache is read-only, and so is a copy of it
    fs.writeFileSync(path.join(src, 'build', 'version', 'version.txt'), `${FERRET_VERSION}\n`);
    if (flavour === 'patched') {
      const patches = patchFiles();
      log(`applying ${patches.map((file) => path.basename(file)).join(', ')}`);
      // Outside any repository (a TMPDIR inside one would make git apply it there instead).
      await run('git', ['apply', '--whitespace=nowarn', ...patches], { cwd: src, env: { ...process.env, GIT_CEILING_DIRECTORIES: tmp } });
    }

    log('compiling FerretDB');
    await go(['build', '-buildvcs=false', '-ldflags=-checklinkname=0', '-o', tmpBin, './cmd/ferretdb'], src);
    if (!(await ferretRuns(tmpBin))) throw new Error(`the freshly built ${tmpBin} does not run`);
    fs.renameSync(tmpBin, bin);
    log(`built FerretDB ${FERRET_VERSION} (${flavour}) in ${Math.round((Date.now() - started) / 1000)} s: ${bin}`);
  } finally {
    fs.rmSync(tmpBin, { force: true });
    makeWritable(tmp);
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/** @param {string} dir */
function makeWritable(dir) {
  if (!fs.existsSync(dir)) return;
  fs.chmodSync(dir, 0o755);
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) makeWritable(full);
    else if (!entry.isSymbolicLink()) fs.chmodSync(full, 0o644 | (fs.statSync(full).mode & 0o111));
  }
}

module.exports = { FERRET_VERSION, ferretCacheDir, ensureFerretBinary };
