/**
 * A throw-away copy of this repository for the generator's tests: the sources are copied, the
 * installed packages are linked (not copied), so a test can generate, build and run a resource
 * without touching the real tree.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const ROOT = path.resolve(__dirname, '..', '..', '..');

/** Never copied: installs, builds, local state and the local secrets. */
const SKIPPED = new Set(['node_modules', '.git', '.data', 'dist', 'coverage', '.env']);

function copySources(from: string, to: string): void {
  fs.mkdirSync(to, { recursive: true });
  for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
    if (SKIPPED.has(entry.name) || entry.name.endsWith('.tsbuildinfo')) continue;
    const source = path.join(from, entry.name);
    const target = path.join(to, entry.name);
    if (entry.isDirectory()) copySources(source, target);
    else if (entry.isFile()) fs.copyFileSync(source, target);
  }
}

/** Links each workspace's own node_modules (shared/node_modules, say) to the real one. */
function linkNestedModules(copy: string): void {
  const services = fs.readdirSync(path.join(ROOT, 'services')).map((dir) => path.join('services', dir));
  for (const rel of ['shared', 'gateway', 'test', ...services]) {
    const nested = path.join(ROOT, rel, 'node_modules');
    if (fs.existsSync(nested) && fs.existsSync(path.join(copy, rel))) fs.symlinkSync(nested, path.join(copy, rel, 'node_modules'), 'dir');
  }
}

/**
 * node_modules of the copy: a real folder whose entries link to the real packages, except npm's
 * own record (.package-lock.json, copied) and @restgate (the workspace links, relative, so they
 * point into the copy). The generator edits exactly those two.
 */
function linkModules(copy: string): void {
  const real = path.join(ROOT, 'node_modules');
  const mine = path.join(copy, 'node_modules');
  fs.mkdirSync(mine);
  for (const entry of fs.readdirSync(real)) {
    if (entry === '@restgate' || entry === '.package-lock.json') continue;
    fs.symlinkSync(path.join(real, entry), path.join(mine, entry), 'dir');
  }
  if (fs.existsSync(path.join(real, '.package-lock.json')))
    fs.copyFileSync(path.join(real, '.package-lock.json'), path.join(mine, '.package-lock.json'));
  fs.mkdirSync(path.join(mine, '@restgate'));
  for (const link of fs.readdirSync(path.join(real, '@restgate'))) {
    fs.symlinkSync(fs.readlinkSync(path.join(real, '@restgate', link)), path.join(mine, '@restgate', link), 'dir');
  }
}

/**
 * A fresh copy in the system's temporary folder; remove it with `removeCopy`. Without `installed`,
 * it has no node_modules at all: a clone before `npm install`.
 */
export function copyRepo(prefix = 'restgate-generator-', { installed = true } = {}): string {
  const copy = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  copySources(ROOT, copy);
  if (installed) {
    linkModules(copy);
    linkNestedModules(copy);
  }
  return copy;
}

/** The files of `copy` (outside node_modules) that are new or differ from this repository's. */
export function changedFiles(copy: string): string[] {
  const changed: string[] = [];
  const walk = (rel: string) => {
    for (const entry of fs.readdirSync(path.join(copy, rel), { withFileTypes: true })) {
      const child = rel ? path.join(rel, entry.name) : entry.name;
      if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name.endsWith('.tsbuildinfo')) continue;
      if (entry.isDirectory()) walk(child);
      else if (entry.isFile()) {
        const original = path.join(ROOT, child);
        if (!fs.existsSync(original) || !fs.readFileSync(original).equals(fs.readFileSync(path.join(copy, child)))) changed.push(child);
      }
    }
  };
  walk('');
  return changed.sort();
}

export function removeCopy(copy: string | undefined): void {
  if (!copy) return;
  if (process.env.RESTGATE_KEEP_GENERATED) process.stderr.write(`[generator test] copy kept in ${copy}\n`);
  else fs.rmSync(copy, { recursive: true, force: true });
}

/**
 * A digest of everything the generator could change in `dir`: every file outside node_modules,
 * npm's record in node_modules and the workspace links.
 */
export function treeHash(dir: string): string {
  const hash = createHash('sha256');
  const walk = (rel: string) => {
    for (const entry of fs.readdirSync(path.join(dir, rel), { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const child = path.join(rel, entry.name);
      if (entry.name === 'node_modules') continue;
      if (entry.isDirectory()) walk(child);
      else if (entry.isSymbolicLink()) hash.update(`link ${child} ${fs.readlinkSync(path.join(dir, child))}\n`);
      else hash.update(`file ${child}\n`).update(fs.readFileSync(path.join(dir, child)));
    }
  };
  walk('.');
  const modules = path.join(dir, 'node_modules');
  if (fs.existsSync(path.join(modules, '.package-lock.json'))) hash.update(fs.readFileSync(path.join(modules, '.package-lock.json')));
  if (fs.existsSync(path.join(modules, '@restgate'))) {
    for (const link of fs.readdirSync(path.join(modules, '@restgate')).sort()) {
      hash.update(`workspace ${link} ${fs.readlinkSync(path.join(modules, '@restgate', link))}\n`);
    }
  }
  return hash.digest('hex');
}

export interface RunResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** The environment for commands run in a copy: ours, minus what would make a nested jest think it is a worker. */
export function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  delete env.JEST_WORKER_ID;
  return env;
}

/** `node scripts/generate.cjs …` in `copy`, synchronously (it takes a second or two). */
export function generate(copy: string, args: string[]): RunResult {
  const res = spawnSync(process.execPath, [path.join(copy, 'scripts', 'generate.cjs'), ...args], {
    cwd: copy,
    encoding: 'utf8',
    env: childEnv(),
  });
  return { status: res.status, stdout: res.stdout, stderr: res.stderr };
}

/** A binary of the project's devDependencies (tsc, eslint, jest) run in `copy`; resolves with its output. */
export function runBin(copy: string, bin: string, args: string[], env: Record<string, string> = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(path.join(copy, 'node_modules', '.bin', bin), args, {
      cwd: copy,
      env: childEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', (status) => resolve({ status, stdout, stderr }));
  });
}
