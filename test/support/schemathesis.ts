/**
 * schemathesis (an OpenAPI fuzzer, from PyPI) in a virtual environment of the project's own,
 * created on first use under ~/.cache/restgate (shared by every checkout, like FerretDB's
 * binary), at a pinned version so that a run fuzzes the same way on every machine.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const SCHEMATHESIS_VERSION = '4.32.5';

/** The `st` executable, installing it first when the environment lacks it or has another version. */
export function ensureSchemathesis(log: (msg: string) => void = () => undefined): string {
  const venv = path.join(os.homedir(), '.cache', 'restgate', `venv-schemathesis-${SCHEMATHESIS_VERSION}`);
  const st = path.join(venv, 'bin', 'st');
  if (fs.existsSync(st)) return st;
  log(`creating ${venv} and installing schemathesis ${SCHEMATHESIS_VERSION} from PyPI`);
  // A half-made environment from an interrupted run is made again.
  fs.rmSync(venv, { recursive: true, force: true });
  execFileSync('python3', ['-m', 'venv', venv], { stdio: 'inherit' });
  execFileSync(path.join(venv, 'bin', 'pip'), ['install', '--quiet', `schemathesis==${SCHEMATHESIS_VERSION}`], { stdio: 'inherit' });
  return st;
}
