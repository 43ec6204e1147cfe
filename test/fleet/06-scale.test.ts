/**
 * Scenario 6: the gateway scaled up to 5 replicas and down to 2 under load loses no request (new
 * replicas join the balancer once ready; removed ones drain first).
 */
import { accounts, docker, eventually, fleetSettled, replicas, serviceName, underLoad, type Account } from './support';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
let pool: Account[];

beforeAll(async () => {
  await fleetSettled();
  pool = await accounts(12);
});

afterAll(async () => {
  await docker(['service', 'scale', '--detach', `${serviceName('gateway')}=3`]);
  await fleetSettled();
});

async function scale(n: number): Promise<void> {
  await docker(['service', 'scale', '--detach', `${serviceName('gateway')}=${n}`]);
  await eventually(`the gateway at ${n} replicas`, async () => {
    const r = await replicas('gateway');
    return r.running === n && r.desired === n ? true : undefined;
  });
}

test('the gateway scaled 3 → 5 → 2 under load: 0 failed requests', async () => {
  const { report } = await underLoad('scale 3 → 5 → 2', { accounts: pool }, async () => {
    await scale(5);
    await fleetSettled();
    await sleep(5_000);
    await scale(2);
    await sleep(5_000);
  });

  expect(report.sent).toBeGreaterThan(500);
  expect(report.failures).toEqual([]);
  expect(report.unexpected).toEqual([]);
});
