import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { ReadinessCheck } from '../health';

export interface RedisHandle {
  client: Redis;
  /** `/ready` check: a PING answered. */
  readiness: ReadinessCheck;
  /**
   * Resolves once connected, or after `timeoutMs` anyway: a process starts without Redis (its
   * limits use their fallback), but should not count its first requests apart when Redis is there.
   */
  whenReady(timeoutMs: number): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * A Redis client for counters that must hold across replicas (rate limits, back-off).
 *
 * Commands fail at once while the connection is down (no offline queue, one try per command):
 * a limiter then falls back as its own rule says instead of holding the request until Redis
 * comes back. The client reconnects by itself; the transitions are logged once each, not per try.
 */
export function createRedis(url: string, logger: Logger, name = 'redis'): RedisHandle {
  const client = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2_000,
    retryStrategy: (times) => Math.min(100 * times, 2_000),
    lazyConnect: false,
    // Commands issued in one tick go out in one write: under load the gateway's limit checks
    // for concurrent requests share a syscall instead of each paying for one.
    enableAutoPipelining: true,
  });
  let down = false;
  client.on('error', (err: Error) => {
    if (down) return;
    down = true;
    logger.warn({ err: { message: err.message } }, `${name}: connection lost; limits use their fallback until it is back`);
  });
  client.on('ready', () => {
    if (down) logger.info(`${name}: connection back`);
    down = false;
  });
  return {
    client,
    readiness: { name, check: () => client.ping() },
    whenReady: (timeoutMs) =>
      new Promise((resolve) => {
        if (client.status === 'ready') return resolve(true);
        const timer = setTimeout(() => {
          client.off('ready', onReady);
          resolve(false);
        }, timeoutMs);
        const onReady = () => {
          clearTimeout(timer);
          resolve(true);
        };
        client.once('ready', onReady);
      }),
    async close() {
      try {
        await client.quit();
      } catch {
        client.disconnect();
      }
    },
  };
}
