/**
 * The mailer as a process on SIGTERM: its port serves only probes and metrics, so DRAIN_DELAY_MS
 * (which every service reads, and the Helm chart sets for all) does not hold up its stop.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { aSecret, startProcess, tempDir, waitForStatus } from './support/processes';

const work = tempDir('mailer-stop');
afterAll(() => work.cleanup());

test('when DRAIN_DELAY_MS is set, then the mailer still stops at once on SIGTERM and exits 0', async () => {
  const { AMQP_URL, MONGODB_URL } = process.env;
  if (!AMQP_URL || !MONGODB_URL) throw new Error('AMQP_URL or MONGODB_URL is not set: run through jest (its global setup provisions them)');
  const DELAY_MS = 20_000;
  const mailer = await startProcess({
    name: 'mailer',
    dir: 'services/mailer',
    env: {
      AMQP_URL,
      MONGODB_URL,
      MONGODB_DB: `ops_mailer_${randomBytes(4).toString('hex')}`,
      PRINCIPAL_SECRET: aSecret(),
      OUTBOX_DIR: path.join(work.dir, 'outbox'),
      TOPOLOGY_PREFIX: `ops-${randomBytes(4).toString('hex')}.`,
      DRAIN_DELAY_MS: String(DELAY_MS),
    },
    logDir: work.dir,
  });
  await waitForStatus(`${mailer.url}/ready`, 200, 20_000);

  const signalled = Date.now();
  mailer.signal('SIGTERM');
  const exit = await mailer.exited;

  expect(exit).toEqual({ code: 0, signal: null });
  expect(Date.now() - signalled).toBeLessThan(DELAY_MS / 2);
  expect(mailer.logLines().find((l) => String(l.msg).startsWith('draining'))).toBeUndefined();
}, 60_000);
