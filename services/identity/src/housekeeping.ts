import type { Logger } from '@restgate/shared';

export interface Housekeeping {
  /** Runs the jobs now and every `everyMs` until `stop()`. */
  start(): void;
  /** Waits for a pass in progress, then runs no more. */
  stop(): Promise<void>;
}

/**
 * The service's periodic jobs (removing expired rows: FerretDB has no TTL index). One timer for
 * all, so no request path ever sweeps. A failing job is logged and tried again next time.
 */
export function createHousekeeping(options: {
  jobs: Record<string, () => Promise<number>>;
  logger: Logger;
  everyMs?: number;
}): Housekeeping {
  const log = options.logger.child({ component: 'housekeeping' });
  const everyMs = options.everyMs ?? 10 * 60_000;
  let timer: NodeJS.Timeout | undefined;
  let pass: Promise<void> | undefined;

  async function runAll(): Promise<void> {
    for (const [job, run] of Object.entries(options.jobs)) {
      try {
        const removed = await run();
        if (removed > 0) log.info({ job, removed }, 'removed expired rows');
      } catch (err) {
        log.warn({ job, err: (err as Error).message }, 'removing expired rows failed');
      }
    }
  }

  const tick = () => {
    pass ??= runAll().finally(() => (pass = undefined));
  };

  return {
    start() {
      if (timer) return;
      tick();
      timer = setInterval(tick, everyMs);
      timer.unref();
    },
    async stop() {
      clearInterval(timer);
      timer = undefined;
      await pass;
    },
  };
}
