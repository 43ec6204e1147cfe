/**
 * Scenario 2: one replica of each service SIGKILLed under load. Idempotent requests never fail (the
 * balancer and the gateway send them again elsewhere); a non-idempotent one may fail only if it was
 * in flight when its replica died, so their failures are at most the load's non-idempotent
 * requests in flight while the kill command ran (the moment of death lies somewhere in it).
 */
import { accounts, containersOf, docker, fleetSettled, underLoad, type Account } from './support';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
let pool: Account[];

beforeAll(async () => {
  await fleetSettled();
  pool = await accounts(24);
});

test('a SIGKILL of one gateway, identity, articles and mailer replica: no idempotent request fails', async () => {
  const { report, result: inFlight } = await underLoad('SIGKILL of one replica each', { accounts: pool }, async (load) => {
    const victims = await Promise.all(['gateway', 'identity', 'articles', 'mailer'].map(async (s) => (await containersOf(s))[0]!));
    // The replicas die somewhere between the command's start and its return: every request in
    // flight at any moment of it may have been on a dying replica.
    const window = load.inFlightDuring();
    await docker(['kill', '--signal', 'KILL', ...victims]);
    const atKill = window.end();
    await sleep(3_000);
    await fleetSettled();
    return atKill;
  });
  const nonIdempotent = report.failures.filter((f) => !f.idempotent);
  process.stdout.write(
    `[fleet]   in flight at the kill: ${inFlight.all} (non-idempotent ${inFlight.nonIdempotent}); non-idempotent failed: ${nonIdempotent.length}\n`,
  );

  expect(report.sent).toBeGreaterThan(500);
  expect(report.failures.filter((f) => f.idempotent)).toEqual([]);
  expect(nonIdempotent.length).toBeLessThanOrEqual(inFlight.nonIdempotent);
  expect(report.unexpected).toEqual([]);
});
