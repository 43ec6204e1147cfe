import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as backing from '../../scripts/lib/backing.cjs';
import type { ServerHandle } from '../../scripts/lib/backing.cjs';
import { aUser, signIn, signUp } from '../support/actors';
import { client, type Client } from '../support/http';
import { expectProblem } from '../support/shapes';
import { startTestStack, type TestStack } from '../support/stack';

/**
 * Ended sessions and a Redis of this file's own, stopped and started again on the same port and
 * files (as npm start runs it: an append-only file). What was recorded before holds after the
 * restart, for the gateway that was running and for one that starts afterwards and reads the
 * list from Redis alone. While Redis is away: known ends still hold, other tokens work, and a
 * logout answers 503 (it could not reach the gateways) instead of pretending.
 */
describe('when Redis stops and starts again', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'restgate-sessions-redis-'));
  const quiet = () => undefined;
  let redis: ServerHandle;
  let stack: TestStack;
  let api: Client;

  beforeAll(async () => {
    redis = await backing.ensureRedis({ dataDir, env: {}, log: quiet });
    stack = await startTestStack({ env: { REDIS_URL: redis.url } });
    api = client(stack.url);
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
    await redis?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const me = (token: string, gateway: Client = api) => gateway.get('/users/me', { bearer: token });

  async function aSession(): Promise<{ token: string }> {
    const user = aUser();
    expect((await signUp(api, stack, user)).status).toBe(201);
    const reply = await signIn(api, stack, user);
    expect(reply.status).toBe(201);
    return { token: reply.body.token };
  }

  /** Polls `check` until it holds (the reconnects take a moment); fails after `timeoutMs`. */
  async function until(what: string, check: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`${what} did not happen within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  test('then a session ended before still is 401 on the running gateway and on a gateway started after', async () => {
    const ended = await aSession();
    const live = await aSession();
    expect((await api.request('DELETE', '/auth/session', { bearer: ended.token })).status).toBe(204);
    await until('the logout to reach the gateway', async () => (await me(ended.token)).status === 401);
    const port = Number(new URL(redis.url).port);

    await redis.stop();
    // Away: the ended session stays ended, the live one works, and a logout cannot be recorded.
    expectProblem(await me(ended.token), 401);
    expect((await me(live.token)).status).toBe(200);
    const logoutWhileAway = await api.request('DELETE', '/auth/session', { bearer: live.token });
    expectProblem(logoutWhileAway, 503);
    expect((await me(live.token)).status).toBe(200);

    redis = await backing.ensureRedis({ dataDir, env: {}, port, log: quiet });
    const fresh = await stack.startGateway();
    try {
      const replica = client(fresh.url);
      expectProblem(await me(ended.token, replica), 401);
      expect((await me(live.token, replica)).status).toBe(200);
      expectProblem(await me(ended.token), 401);
      // And ending sessions works again once identity has reconnected.
      await until(
        'identity to reconnect to Redis',
        async () => (await api.request('DELETE', '/auth/session', { bearer: live.token })).status === 204,
      );
      await until(
        'the logout to reach both gateways',
        async () => (await me(live.token)).status === 401 && (await me(live.token, replica)).status === 401,
      );
    } finally {
      await fresh.stop();
    }
  });
});
