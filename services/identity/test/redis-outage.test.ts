import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { signClientAddress } from '@restgate/shared/http';
import { TEST_PRINCIPAL_SECRET } from '@restgate/shared/testing';
import { eventually } from '../../mailer/test/support/eventually';
import { basic, MASTER, startIdentity, type IdentityHarness } from './support/identity-harness';
import { resetsOf } from './support/password-resets';

interface RedisServer {
  url: string;
  stop(): Promise<void>;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const backing = require('../../../scripts/lib/backing.cjs') as {
  ensureRedis(options: { dataDir: string; env: Record<string, string>; port?: number; log?: (msg: string) => void }): Promise<RedisServer>;
};

/**
 * Redis killed mid-test, on a server of this file's own. The decisions under test: the password
 * back-off falls back to counting in this process (still throttled, owner still gets in), the
 * reset-mail cap fails closed (the same 202, no mail), readiness says Redis is down, and after a
 * restart the counts start again from zero (only the current windows were lost).
 */
describe('when Redis goes away and comes back', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'restgate-redis-outage-'));
  const quiet = () => undefined;
  let redis: RedisServer;
  let port: number;
  let h: IdentityHarness;

  beforeAll(async () => {
    redis = await backing.ensureRedis({ dataDir, env: {}, log: quiet });
    port = Number(new URL(redis.url).port);
    h = await startIdentity(
      { REDIS_URL: redis.url, PASSWORD_BACKOFF_FREE_FAILURES: '2', PASSWORD_BACKOFF_BASE_SECONDS: '60', RESET_MAILS_PER_EMAIL: '5/3600' },
      { abuse: true },
    );
  });
  afterAll(async () => {
    await h.close();
    await redis.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const signInFrom = (address: string, email: string, password: string) =>
    h
      .call('post', '/auth', MASTER)
      .set('Authorization', basic(email, password))
      .set('X-Restgate-Client', signClientAddress(address, TEST_PRINCIPAL_SECRET, 'POST', '/auth'));
  const series = async (name: string, labels: string) => {
    const line = (await h.metrics.render()).split('\n').find((l) => l.startsWith(`${name}{${labels}}`));
    return line ? Number(line.split(' ').at(-1)) : 0;
  };

  test('then the back-off counts in memory, resets send no mail, /ready says so, and after the restart counting starts afresh', async () => {
    const user = await h.aUser();
    expect((await h.call('get', '/ready')).status).toBe(200);
    await redis.stop();
    await eventually(async () => (await h.call('get', '/ready')).status === 503, { what: '/ready to see Redis gone' });

    const guesses = [];
    for (const guess of ['w-1', 'w-2', 'w-3', 'w-4']) guesses.push((await signInFrom('198.51.100.20', user.email, guess)).status);
    const owner = await signInFrom('203.0.113.20', user.email, user.password);
    const reset = await h.call('post', '/password-resets', MASTER).type('form').send({ email: user.email });

    expect(guesses).toEqual([401, 401, 401, 429]);
    expect(owner.status).toBe(201);
    expect(reset.status).toBe(202);
    expect(await resetsOf(h, user.id)).toEqual([]);
    expect(await series('rate_limit_store_errors_total', 'limit="password-backoff",fallback="memory"')).toBeGreaterThan(0);
    expect(await series('rate_limit_store_errors_total', 'limit="reset-mails",fallback="closed"')).toBe(1);

    redis = await backing.ensureRedis({ dataDir, env: {}, port, log: quiet });
    await eventually(async () => (await h.call('get', '/ready')).status === 200, { what: '/ready to see Redis back', timeoutMs: 15_000 });
    const again = await h.call('post', '/password-resets', MASTER).type('form').send({ email: user.email });

    expect(again.status).toBe(202);
    expect(await resetsOf(h, user.id)).toHaveLength(1);
  });
});
