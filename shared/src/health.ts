import type { Express } from 'express';

/** One dependency that must answer for the service to be ready. */
export interface ReadinessCheck {
  name: string;
  check: () => Promise<unknown>;
}

const CHECK_TIMEOUT_MS = 1_500;

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

/** `GET /health` says the process is alive; `GET /ready` names each dependency and whether it answers. */
export function mountHealth(app: Express, checks: ReadinessCheck[]): void {
  app.get('/health', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/ready', async (_req, res) => {
    const results = await Promise.all(checks.map(async (c) => [c.name, await runCheck(c)] as const));
    const ready = results.every(([, state]) => state === 'up');
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'unready', checks: Object.fromEntries(results) });
  });
}
