/**
 * A stack process that dies on start, when nobody reads its lines as they come (the bench, the
 * docs build): its output goes straight to its log file, and the start's error still shows why.
 */
import fs from 'node:fs';
import path from 'node:path';
import * as stackLib from '../../scripts/lib/stack.cjs';
import { aSecret, backing, tempDir } from './support/processes';

const logs = tempDir('stack-failure');
afterAll(() => logs.cleanup());

it('rejects with the dead process’s last lines, read back from its log file', async () => {
  const ports: Record<string, number> = {};
  for (const def of [stackLib.GATEWAY, ...stackLib.SERVICES]) ports[def.name] = await backing.freePort();
  const start = stackLib.startStack({
    // Identity refuses a JWT_SECRET shorter than 32 characters, and exits 1 naming it.
    env: { NODE_ENV: 'test', MASTER_KEY: aSecret(), PRINCIPAL_SECRET: aSecret(), JWT_SECRET: 'too-short' },
    ports,
    logDir: logs.dir,
    healthTimeoutMs: 30_000,
  });

  const err = (await start.then(
    () => undefined,
    (e: unknown) => e,
  )) as Error | undefined;

  expect(err).toBeInstanceOf(Error);
  expect(err!.message).toMatch(/exited \(exit code 1\) before it was healthy/);
  expect(err!.message).toContain('--- last lines of identity ---');
  expect(err!.message).toContain('JWT_SECRET');
  // The line came through the file, not through a pipe of this process.
  expect(fs.readFileSync(path.join(logs.dir, 'identity.log'), 'utf8')).toContain('JWT_SECRET');
});
