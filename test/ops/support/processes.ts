/**
 * Single restgate processes for the operations tests: `node <dir>/dist/start.js` on a free port,
 * with the environment the test gives, its JSON log lines kept in a file and readable back.
 * Needs the build (`npx tsc -b`).
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import * as backingLib from '../../../scripts/lib/backing.cjs';
import type { ServerHandle } from '../../../scripts/lib/backing.cjs';

/** A backing server this test started (or found through the environment) and stops. */
export type BackingServer = ServerHandle;

/** The same servers `npm start` runs (scripts/lib/backing.cjs). */
export const backing = backingLib;

export const ROOT_DIR = path.resolve(__dirname, '..', '..', '..');

export function aSecret(): string {
  return randomBytes(32).toString('base64url');
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface RunningProcess {
  name: string;
  pid: number;
  port: number;
  url: string;
  logFile: string;
  /** Resolves when the process has exited and its output is in the log file. */
  exited: Promise<Exit>;
  /** The JSON log lines written so far. */
  logLines(): Record<string, unknown>[];
  signal(sig: NodeJS.Signals): void;
  /** SIGTERM, then SIGKILL if it is still there after 10 s. */
  stop(): Promise<Exit>;
}

/** A temporary folder for logs and data, removed by `cleanup()` (kept with RESTGATE_KEEP_LOGS=1). */
export function tempDir(prefix: string): { dir: string; cleanup: () => void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `restgate-ops-${prefix}-`));
  return {
    dir,
    cleanup: () => {
      if (process.env.RESTGATE_KEEP_LOGS) process.stderr.write(`[ops] logs kept in ${dir}\n`);
      else fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

function assertBuilt(dir: string): string {
  const script = path.join(ROOT_DIR, dir, 'dist', 'start.js');
  if (!fs.existsSync(script)) throw new Error(`${path.relative(ROOT_DIR, script)} is missing: run \`npx tsc -b\` first (npm test does)`);
  return script;
}

/** Starts `node <dir>/dist/start.js` and waits until it answers GET /health (fails with its log if it exits). */
export async function startProcess(options: {
  name: string;
  dir: string;
  env: Record<string, string>;
  logDir: string;
  port?: number;
}): Promise<RunningProcess> {
  const script = assertBuilt(options.dir);
  const port = options.port ?? (await backing.freePort());
  const logFile = path.join(options.logDir, `${options.name}.log`);
  const out = fs.openSync(logFile, 'a');
  const child = spawn(process.execPath, [script], {
    cwd: ROOT_DIR,
    env: {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'test',
      LOG_LEVEL: 'info',
      REDIS_URL: process.env.REDIS_URL ?? '',
      ...options.env,
      PORT: String(port),
      HOST: '127.0.0.1',
    },
    stdio: ['ignore', out, out],
  });
  fs.closeSync(out);
  let exitInfo: Exit | undefined;
  const exited = new Promise<Exit>((resolve) => {
    child.once('exit', (code, signal) => {
      exitInfo = { code, signal };
      resolve(exitInfo);
    });
  });
  const proc: RunningProcess = {
    name: options.name,
    pid: child.pid ?? 0,
    port,
    url: `http://127.0.0.1:${port}`,
    logFile,
    exited,
    logLines: () => readLogLines(logFile),
    signal: (sig) => {
      if (!exitInfo) child.kill(sig);
    },
    stop: async () => {
      if (exitInfo) return exitInfo;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      const info = await exited;
      clearTimeout(timer);
      return info;
    },
  };
  const deadline = Date.now() + 30_000;
  while (!(await answers(`${proc.url}/health`))) {
    if (exitInfo || Date.now() > deadline) {
      await proc.stop();
      throw new Error(
        `${options.name} did not become healthy (${exitInfo ? `exited ${JSON.stringify(exitInfo)}` : 'timeout'}):\n${fs.readFileSync(logFile, 'utf8')}`,
      );
    }
    await sleep(100);
  }
  return proc;
}

export function readLogLines(logFile: string): Record<string, unknown>[] {
  return fs
    .readFileSync(logFile, 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** Polls `find` over a process's log lines until it matches (log lines reach the file a moment after the answer). */
export async function waitForLogLine(
  logLines: () => Record<string, unknown>[],
  find: (line: Record<string, unknown>) => boolean,
  timeoutMs = 5_000,
): Promise<Record<string, unknown> | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const line = logLines().find(find);
    if (line || Date.now() > deadline) return line;
    await sleep(50);
  }
}

function answers(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = http.get(url, { agent: false, timeout: 1_000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.once('timeout', () => req.destroy());
    req.once('error', () => resolve(false));
  });
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  json: () => any;
}

/**
 * A request with a client-side deadline: `fetch` aborts after `timeoutMs` and the promise rejects.
 * The tests use generous deadlines to tell "answers" from "hangs" (a correctness check, not a
 * speed target: speed is measured by the benchmark scripts).
 */
export async function call(url: string, init: RequestInit & { timeoutMs?: number } = {}): Promise<Reply> {
  const { timeoutMs = 5_000, ...rest } = init;
  const res = await fetch(url, { ...rest, signal: AbortSignal.timeout(timeoutMs) });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: () => JSON.parse(text) };
}

/** Polls `url` until it answers `status` (or the deadline passes), returning the last reply. */
export async function waitForStatus(url: string, status: number, timeoutMs: number): Promise<Reply | undefined> {
  const deadline = Date.now() + timeoutMs;
  let last: Reply | undefined;
  while (Date.now() < deadline) {
    last = await call(url, { timeoutMs: 5_000 }).catch(() => undefined);
    if (last?.status === status) return last;
    await sleep(250);
  }
  return last;
}
