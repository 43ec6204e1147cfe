/**
 * SIGTERM while a service is still starting (its database not there yet): nothing is served, so
 * it exits 0 at once instead of being killed by the signal or finishing a start nobody wants.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { aSecret, backing, readLogLines, ROOT_DIR, tempDir, waitForLogLine, type Exit } from './support/processes';

const logs = tempDir('early-stop');
afterAll(() => logs.cleanup());

test('when SIGTERM comes while the service waits for its database, then it exits 0', async () => {
  const deadPort = await backing.freePort(); // nothing listens there
  const logFile = path.join(logs.dir, 'articles.log');
  const out = fs.openSync(logFile, 'a');
  const child = spawn(process.execPath, [path.join(ROOT_DIR, 'services', 'articles', 'dist', 'start.js')], {
    cwd: ROOT_DIR,
    env: {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'test',
      HOST: '127.0.0.1',
      PORT: String(await backing.freePort()),
      PRINCIPAL_SECRET: aSecret(),
      MONGODB_URL: `mongodb://127.0.0.1:${deadPort}/`,
      AMQP_URL: `amqp://127.0.0.1:${deadPort}`,
    },
    stdio: ['ignore', out, out],
  });
  fs.closeSync(out);
  const exited = new Promise<Exit>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));

  const retrying = await waitForLogLine(
    () => readLogLines(logFile),
    (l) => /creating indexes failed, retrying/.test(String(l.msg)),
    20_000,
  );
  child.kill('SIGTERM');
  const exit = await exited;

  expect(retrying).toBeDefined();
  expect(exit).toEqual({ code: 0, signal: null });
  expect(readLogLines(logFile).find((l) => l.msg === 'stopped before listening')).toMatchObject({ signal: 'SIGTERM' });
});
