/**
 * Scenario 4: a session ended through one gateway replica is refused by every replica within a
 * second (the ended sessions are in Redis, and each gateway hears of them by pub/sub). Each
 * replica is reached directly, from inside the network.
 */
import { accounts, anAccount, fleetSettled, probe, underLoad, type Account } from './support';

let pool: Account[];

beforeAll(async () => {
  await fleetSettled();
  pool = await accounts(12);
});

test('a logout through one replica is refused by every gateway replica within 1 s, under load', async () => {
  const account = await anAccount();
  const { report, result } = await underLoad('ended sessions', { accounts: pool }, () =>
    probe<{ before: number[]; logout: number; refusedAfterMs: number[] }>(`
    const dns = require('node:dns').promises;
    const me = (a) => fetch('http://' + a + ':9000/users/me', { headers: { authorization: 'Bearer ${account.token}' }, signal: AbortSignal.timeout(5000) }).then((r) => r.status, () => 0);
    (async () => {
      const replicas = (await dns.resolve4('tasks.gateway')).sort();
      const before = await Promise.all(replicas.map(me));
      const logout = await fetch('http://' + replicas[0] + ':9000/auth/session', { method: 'DELETE', headers: { authorization: 'Bearer ${account.token}' } }).then((r) => r.status);
      const t0 = Date.now();
      const refusedAfterMs = await Promise.all(replicas.map(async (a) => {
        for (;;) {
          if ((await me(a)) === 401) return Date.now() - t0;
          if (Date.now() - t0 > 5000) return -1;
          await new Promise((r) => setTimeout(r, 25));
        }
      }));
      console.log(JSON.stringify({ before, logout, refusedAfterMs }));
    })();`),
  );
  process.stdout.write(`[fleet]   logout → 401 on each replica after ${result.refusedAfterMs.join(', ')} ms\n`);

  expect(result.before).toEqual([200, 200, 200]);
  expect(result.logout).toBe(204);
  for (const ms of result.refusedAfterMs) {
    expect(ms).toBeGreaterThanOrEqual(0);
    expect(ms).toBeLessThanOrEqual(1_000);
  }
  expect(report.failures).toEqual([]);
});
