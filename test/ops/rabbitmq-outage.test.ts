/**
 * A broker outage, with a RabbitMQ of the test's own (the one from jest's global setup serves the
 * other test files): the mailer turns unready naming the broker while it is down, and ready again
 * once a broker is back on the same address, without a restart.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import amqplib from 'amqplib';
import { aSecret, backing, call, startProcess, tempDir, waitForStatus, type BackingServer, type RunningProcess } from './support/processes';

const work = tempDir('rabbitmq-outage');
const quiet = () => undefined;
let port: number;
let rabbit: BackingServer | undefined;
let mailer: RunningProcess;

/** Starts (or restarts) a broker of ours on the same port; AMQP_URL of the run and a broker on 5672 are ignored. */
function startRabbit(): Promise<BackingServer> {
  return backing.ensureRabbit({ dataDir: work.dir, env: {}, port, log: quiet });
}

beforeAll(async () => {
  const mongoUrl = process.env.MONGODB_URL;
  if (!mongoUrl) throw new Error('MONGODB_URL is not set: run through jest (its global setup provisions MongoDB)');
  port = await backing.freePort();
  rabbit = await startRabbit();
  mailer = await startProcess({
    name: 'mailer',
    dir: 'services/mailer',
    env: {
      AMQP_URL: rabbit.url,
      MONGODB_URL: mongoUrl,
      MONGODB_DB: `ops_mailer_${randomBytes(4).toString('hex')}`,
      PRINCIPAL_SECRET: aSecret(),
      OUTBOX_DIR: path.join(work.dir, 'outbox'),
      TOPOLOGY_PREFIX: `ops-${randomBytes(4).toString('hex')}.`,
    },
    logDir: work.dir,
  });
}, 120_000);

afterAll(async () => {
  await mailer?.stop();
  await rabbit?.stop();
  work.cleanup();
}, 60_000);

test('when RabbitMQ stops, then /ready turns 503 naming it, and 200 again once it is back', async () => {
  const before = await waitForStatus(`${mailer.url}/ready`, 200, 20_000);
  expect(before?.json()).toEqual({ status: 'ready', checks: { rabbitmq: 'up', mongodb: 'up', outbox: 'up' } });

  await rabbit!.stop();
  rabbit = undefined;
  const unready = await waitForStatus(`${mailer.url}/ready`, 503, 20_000);
  const health = await call(`${mailer.url}/health`);

  expect(unready?.json()).toEqual({ status: 'unready', checks: { rabbitmq: 'down', mongodb: 'up', outbox: 'up' } });
  expect(health.status).toBe(200);

  rabbit = await startRabbit();
  const ready = await waitForStatus(`${mailer.url}/ready`, 200, 30_000);

  expect(ready?.json()).toEqual({ status: 'ready', checks: { rabbitmq: 'up', mongodb: 'up', outbox: 'up' } });
  expect(await Promise.race([mailer.exited.then(() => 'exited'), Promise.resolve('running')])).toBe('running');
}, 120_000);

test('when a stack starts its own broker, then only its own login (kept 0600 in its data folder) opens it, on a virtual host of its own', async () => {
  const url = new URL(rabbit!.url);
  const login = (user: string, password: string, vhost = url.pathname) =>
    amqplib.connect(`amqp://${user}:${password}@${url.host}${vhost}`).then(async (connection) => {
      await connection.close();
      return 'open';
    }, () => 'refused');

  expect(url.username).toMatch(/^restgate-/);
  expect(url.pathname).toMatch(/^\/restgate-/);
  expect(await login(url.username, url.password)).toBe('open');
  expect(await login('guest', 'guest', '/')).toBe('refused');
  expect(await login(url.username, `${url.password}x`)).toBe('refused');
  expect(await login(url.username, url.password, '/')).toBe('refused');
  expect(fs.statSync(path.join(work.dir, 'rabbitmq', 'credentials.json')).mode & 0o777).toBe(0o600);
}, 60_000);
