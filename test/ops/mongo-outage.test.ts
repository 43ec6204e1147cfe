/**
 * A database outage, with a MongoDB-compatible server of the test's own (stopping the one from
 * jest's global setup would break the other test files): the articles service turns unready and
 * answers fast 503 problems while it is down, and ready again once it is back on the same address,
 * without a restart.
 */
import { aSecret, backing, call, startProcess, tempDir, waitForStatus, type BackingServer, type RunningProcess } from './support/processes';

const work = tempDir('mongo-outage');
const quiet = () => undefined;
let port: number;
let mongo: BackingServer | undefined;
let articles: RunningProcess;

/** Starts (or restarts) our server on the same port and data folder; MONGODB_URL of the run is ignored. */
async function startMongo(): Promise<BackingServer> {
  return backing.ensureMongo({ dataDir: work.dir, env: {}, port, log: quiet });
}

beforeAll(async () => {
  port = await backing.freePort();
  mongo = await startMongo();
  articles = await startProcess({
    name: 'articles',
    dir: 'services/articles',
    // Its change events wait in the outbox: no broker is needed here.
    env: { MONGODB_URL: mongo.url, MONGODB_DB: 'articles_outage', PRINCIPAL_SECRET: aSecret(), AMQP_URL: 'amqp://127.0.0.1:1' },
    logDir: work.dir,
  });
}, 120_000);

afterAll(async () => {
  await articles?.stop();
  await mongo?.stop();
  work.cleanup();
}, 60_000);

test('when MongoDB stops, then /ready turns 503 naming it, requests get a fast 503 problem, and all is well again once it is back', async () => {
  expect((await call(`${articles.url}/ready`)).json()).toEqual({ status: 'ready', checks: { mongodb: 'up' } });
  expect((await call(`${articles.url}/articles`)).status).toBe(200);

  await mongo!.stop();
  mongo = undefined;
  // Bounded calls (5 s client deadline): a hang fails them. The driver gives up after its 2 s
  // server selection timeout; the readiness check after 1.5 s.
  const unready = await waitForStatus(`${articles.url}/ready`, 503, 20_000);
  const listing = await call(`${articles.url}/articles`);
  const one = await call(`${articles.url}/articles/0123456789abcdef01234567`);
  const health = await call(`${articles.url}/health`);

  expect(unready?.json()).toEqual({ status: 'unready', checks: { mongodb: 'down' } });
  for (const res of [listing, one]) {
    expect(res.status).toBe(503);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(res.json()).toMatchObject({ status: 503, code: 'service_unavailable' });
    expect(res.text).not.toMatch(/127\.0\.0\.1|Mongo|ECONNREFUSED/);
  }
  expect(health.status).toBe(200);

  mongo = await startMongo();
  const ready = await waitForStatus(`${articles.url}/ready`, 200, 30_000);

  expect(ready?.json()).toEqual({ status: 'ready', checks: { mongodb: 'up' } });
  expect((await call(`${articles.url}/articles`)).status).toBe(200);
  // The same process throughout: it never exited, and it started listening once.
  expect(await Promise.race([articles.exited.then(() => 'exited'), Promise.resolve('running')])).toBe('running');
  expect(articles.logLines().filter((l) => l.msg === `articles listening on ${articles.url}`)).toHaveLength(1);
}, 90_000);
