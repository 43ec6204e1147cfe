/**
 * Scenario 3: limits hold across gateway replicas (their counters are in Redis). With the gateway
 * redeployed on low ceilings, requests sent to each replica in turn from inside the network (one
 * client address) are refused from the same request number on as one gateway would refuse them.
 */
import { anAccount, docker, fleetSettled, masterKey, probe, serviceName, type Account } from './support';

const CREDENTIALS = 12;
const ALL = 90;
const LOW = ['RATE_LIMIT_CREDENTIALS=12/60', 'RATE_LIMIT_ALL=90/60', 'RATE_LIMIT_MASTER_FACTOR=1'];
let account: Account;
/** The gateway's own values of the keys LOW sets, given back afterwards. */
let before: Record<string, string | undefined>;

async function gatewayEnvironment(): Promise<Record<string, string>> {
  const out = await docker(['service', 'inspect', '--format', '{{json .Spec.TaskTemplate.ContainerSpec.Env}}', serviceName('gateway')]);
  return Object.fromEntries(
    ((JSON.parse(out) as string[] | null) ?? []).map((e) => [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)]),
  );
}

beforeAll(async () => {
  await fleetSettled();
  account = await anAccount();
  const env = await gatewayEnvironment();
  before = Object.fromEntries(LOW.map((e) => e.split('=')[0]!).map((key) => [key, env[key]]));
  const args = LOW.flatMap((e) => ['--env-add', e]);
  await docker(['service', 'update', '--quiet', ...args, serviceName('gateway')], 10 * 60_000);
  await fleetSettled();
});

afterAll(async () => {
  const args = Object.entries(before).flatMap(([key, value]) =>
    value === undefined ? ['--env-rm', key] : ['--env-add', `${key}=${value}`],
  );
  await docker(['service', 'update', '--quiet', ...args, serviceName('gateway')], 10 * 60_000);
  await fleetSettled();
});

/** Sends `count` requests one after another, to the gateway replicas in turn; their statuses and the replica each went to. */
function roundRobin(count: number, request: { method: string; path: string; headers: Record<string, string>; body?: string }) {
  return probe<{ replicas: number; statuses: number[] }>(`
    const dns = require('node:dns').promises;
    (async () => {
      const replicas = (await dns.resolve4('tasks.gateway')).sort();
      const statuses = [];
      for (let i = 0; i < ${count}; i++) {
        const r = await fetch('http://' + replicas[i % replicas.length] + ':9000' + ${JSON.stringify(request.path)}, {
          method: ${JSON.stringify(request.method)}, headers: ${JSON.stringify(request.headers)}, body: ${JSON.stringify(request.body ?? null)},
          signal: AbortSignal.timeout(10000),
        });
        await r.arrayBuffer();
        statuses.push(r.status);
      }
      console.log(JSON.stringify({ replicas: replicas.length, statuses }));
    })();`);
}

test('the credential ceiling refuses the same request number whichever replica each request lands on', async () => {
  const basic = Buffer.from(`${account.user.email}:${account.user.password}`).toString('base64');
  const { replicas, statuses } = await roundRobin(CREDENTIALS + 4, {
    method: 'POST',
    path: '/auth',
    headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ access_token: masterKey }).toString(),
  });
  process.stdout.write(`[fleet] credential ceiling ${CREDENTIALS}/60 over ${replicas} replicas: ${statuses.join(' ')}\n`);

  expect(replicas).toBe(3);
  expect(statuses).toEqual([...Array<number>(CREDENTIALS).fill(201), ...Array<number>(4).fill(429)]);
});

test('the all-routes ceiling refuses past its number, counted across replicas', async () => {
  const { replicas, statuses } = await roundRobin(ALL + 10, { method: 'GET', path: '/articles?limit=1', headers: {} });
  const served = statuses.filter((s) => s === 200).length;
  const firstRefused = statuses.indexOf(429);
  process.stdout.write(
    `[fleet] all-routes ceiling ${ALL}/60 over ${replicas} replicas: ${served} served, first 429 at request ${firstRefused + 1}\n`,
  );

  expect(replicas).toBe(3);
  // Each replica alone would serve ALL of them; shared, the fleet serves ALL in all. The requests
  // before the credential test's count too (one window), so fewer may be served, never more.
  expect(served).toBeLessThanOrEqual(ALL);
  expect(statuses.slice(firstRefused).every((s) => s === 429)).toBe(true);
  expect(statuses.filter((s) => s !== 200 && s !== 429)).toEqual([]);
});
