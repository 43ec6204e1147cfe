/** One dependency that must answer for the service to be ready. */
export interface ReadinessCheck {
  name: string;
  check: () => Promise<unknown>;
  /**
   * Asked only until the process is first ready, then left out of `/ready`: for a dependency whose
   * outages the process answers request by request. Every replica sees such a dependency alike, so
   * if its trouble turned them unready, the load balancer would lose all of them at once.
   */
  untilFirstReady?: boolean;
}

const CHECK_TIMEOUT_MS = 1_500;

/** Apps whose server is stopping: their `/ready` answers 503 so no new traffic is sent their way. */
const stoppingApps = new WeakSet<object>();

/** Makes `/ready` of `app` answer 503 `stopping` from now on (called when a graceful stop begins). */
export function markStopping(app: object): void {
  if (stoppingApps.has(app)) return;
  stoppingApps.add(app);
  for (const listener of stoppingListeners.get(app) ?? []) listener();
}

const stoppingListeners = new WeakMap<object, Array<() => void>>();

/** Runs `listener` when a graceful stop of `app` begins (long-lived answers such as event streams end then). */
export function onStopping(app: object, listener: () => void): void {
  stoppingListeners.set(app, [...(stoppingListeners.get(app) ?? []), listener]);
}

/** Whether a graceful stop of `app` has begun (markStopping). */
export function isStopping(app: object): boolean {
  return stoppingApps.has(app);
}

async function runCheck(check: ReadinessCheck): Promise<'up' | 'down'> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timeout')), CHECK_TIMEOUT_MS);
  });
  try {
    await Promise.race([check.check(), timeout]);
    return 'up';
  } catch {
    return 'down';
  } finally {
    clearTimeout(timer);
  }
}

/** What `/ready` answers: 200 with `ready` when every check is up, else 503 with `unready`, or `stopping`. */
export async function readiness(
  checks: readonly ReadinessCheck[],
  stopping: boolean,
): Promise<{ ready: boolean; body: { status: string; checks: Record<string, 'up' | 'down'> } }> {
  const results = await Promise.all(checks.map(async (c) => [c.name, await runCheck(c)] as const));
  const ready = !stopping && results.every(([, state]) => state === 'up');
  return { ready, body: { status: stopping ? 'stopping' : ready ? 'ready' : 'unready', checks: Object.fromEntries(results) } };
}
