/**
 * The start-up check as an operator meets it: a built service started with NODE_ENV=production
 * and weak settings exits 1 naming the problem, never printing the secret.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { aSecret, call, ROOT_DIR, startProcess, tempDir } from './support/processes';

const logs = tempDir('production');
afterAll(() => logs.cleanup());

/** Runs the gateway to its exit (it must not get as far as listening), returning its output. */
function runGatewayToExit(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return runToExit('gateway', env);
}

/** The problems of the process's fatal log line (the start-up check's refusal). */
function fatalProblems(output: string): string[] | undefined {
  return output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { level: string; problems?: string[] })
    .find((line) => line.level === 'fatal')?.problems;
}

/** Runs a service (`dir`, from the root) to its exit, returning its output. */
function runToExit(dir: string, env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT_DIR, dir, 'dist', 'start.js')], {
      cwd: ROOT_DIR,
      env: { PATH: process.env.PATH ?? '', NODE_ENV: 'production', HOST: '127.0.0.1', PORT: '0', REDIS_URL: process.env.REDIS_URL ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    // A process that did not refuse would listen and run on: the test's deadline ends it.
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

describe('NODE_ENV=production', () => {
  test('when two secrets share a value and one is not random, then the process exits 1 naming both problems and neither value', async () => {
    const shared = aSecret();
    const patterned = 'a1b2'.repeat(10); // long enough for the config schema, not for production

    const { code, output } = await runGatewayToExit({
      MASTER_KEY: shared,
      JWT_SECRET: shared,
      PRINCIPAL_SECRET: patterned,
      CORS_ORIGINS: '*',
    });

    expect(code).toBe(1);
    expect(fatalProblems(output)).toEqual([
      'PRINCIPAL_SECRET has too few distinct characters to be random',
      'MASTER_KEY and JWT_SECRET have the same value; each secret must be different',
    ]);
    expect(output).not.toContain(shared);
    expect(output).not.toContain(patterned);
    expect(output).not.toMatch(/listening on/);
  });

  test('when identity enables GitHub sign-in without the OAuth app (any app\'s token would sign in), then it exits 1 naming the keys to set', async () => {
    const { code, output } = await runToExit('services/identity', {
      PRINCIPAL_SECRET: aSecret(),
      JWT_SECRET: aSecret(),
      // Never reached: the check comes before any connection.
      MONGODB_URL: 'mongodb://127.0.0.1:9/identity',
      AMQP_URL: `amqp://restgate:${aSecret()}@127.0.0.1:9`,
      SOCIAL_PROVIDERS: 'github',
    });

    expect(code).toBe(1);
    expect(fatalProblems(output)).toEqual([expect.stringMatching(/^SOCIAL_PROVIDERS enables github without GITHUB_CLIENT_ID and GITHUB_CLIENT_SECRET/)]);
    expect(output).not.toMatch(/listening on/);
  });

  test('when every setting is sound, then the gateway starts, and stops with exit code 0', async () => {
    const gateway = await startProcess({
      name: 'gateway-production',
      dir: 'gateway',
      env: { NODE_ENV: 'production', MASTER_KEY: aSecret(), JWT_SECRET: aSecret(), PRINCIPAL_SECRET: aSecret(), METRICS_TOKEN: aSecret() },
      logDir: logs.dir,
    });

    const health = await call(`${gateway.url}/health`);
    const exit = await gateway.stop();

    expect(health.status).toBe(200);
    expect(exit).toEqual({ code: 0, signal: null });
  });
});
