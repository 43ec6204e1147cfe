/**
 * Scenario 1: a rolling update of every service (one replica at a time, the new one started
 * first) under a steady mixed load loses no request: no 5xx, no connection error, no timeout.
 * Each replaced replica drains: the orchestrator's SIGTERM is followed by the process's exit 0,
 * within its stop grace period and, for a service that serves HTTP, no sooner than its
 * DRAIN_DELAY_MS (its /ready says 503 meanwhile, so the balancer and the gateways' pools stop
 * sending to it while it still answers).
 */
import {
  accounts,
  drainDelayOf,
  fleetSettled,
  rollingUpdate,
  underLoad,
  watchStops,
  type Account,
  type LoadReport,
  type Stop,
} from './support';

const SERVICES = ['gateway', 'identity', 'articles', 'mailer'];
/** The ones with HTTP traffic to drain; the mailer's only HTTP is its probes (it stops consuming at once). */
const SERVING = ['gateway', 'identity', 'articles'];
let pool: Account[];

beforeAll(async () => {
  await fleetSettled();
  pool = await accounts(24);
});

test('a rolling update of the gateway, identity, articles and the mailer under load: 0 failed requests, every replica drained', async () => {
  const stops = watchStops();
  let stopped: Stop[] = [];
  let report: LoadReport;
  try {
    ({ report } = await underLoad('rolling update', { accounts: pool }, async () => {
      await rollingUpdate(SERVICES);
      await fleetSettled();
    }));
  } finally {
    stopped = await stops.done();
    process.stdout.write(
      `[fleet]   stopped replicas (service: ms from SIGTERM to exit, exit code): ${stopped.map((s) => `${s.service}: ${s.tookMs} ms, ${s.exitCode}`).join('; ')}\n`,
    );
  }
  const drainDelay = Object.fromEntries(await Promise.all(SERVING.map(async (s) => [s, await drainDelayOf(s)] as const)));
  // Exited 0, not SIGKILLed, and no sooner than the drain delay (a little early: the two events'
  // clocks are the engine's, the delay's timer the process's).
  const undrained = stopped.filter(
    (s) => s.killed || s.exitCode !== '0' || s.tookMs === undefined || s.tookMs < (drainDelay[s.service] ?? 0) - 250,
  );

  expect(report.sent).toBeGreaterThan(1_000);
  expect(report.failures).toEqual([]);
  expect(report.unexpected).toEqual([]);
  expect(stopped.filter((s) => SERVICES.includes(s.service)).length).toBeGreaterThanOrEqual(3 + 3 + 2 + 2);
  expect(undrained).toEqual([]);
});
