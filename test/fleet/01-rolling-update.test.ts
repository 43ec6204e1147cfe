/**
 * Scenario 1: a rolling update of every service (one replica at a time, the new one started
 * first) under a steady mixed load loses no request: no 5xx, no connection error, no timeout.
 */
import { accounts, fleetSettled, rollingUpdate, underLoad, type Account } from './support';

let pool: Account[];

beforeAll(async () => {
  await fleetSettled();
  pool = await accounts(24);
});

test('a rolling update of the gateway, identity, articles and the mailer under load: 0 failed requests', async () => {
  const { report } = await underLoad('rolling update', { accounts: pool }, async () => {
    await rollingUpdate(['gateway', 'identity', 'articles', 'mailer']);
    await fleetSettled();
  });

  expect(report.sent).toBeGreaterThan(1_000);
  expect(report.failures).toEqual([]);
  expect(report.unexpected).toEqual([]);
});
