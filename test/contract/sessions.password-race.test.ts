import { aUser, signIn, signUp, type UserInput } from '../support/actors';
import { client, type Client, type Reply } from '../support/http';
import { aStoredResetToken } from '../support/records';
import { startTestStack, type TestStack } from '../support/stack';

/**
 * The audit's H1: sign-ins with the old password racing a password change or reset. A sign-in
 * that read the old hash before the new one was stored used to open its session after the
 * change's "end every session", and that session lived on (access 200, refresh 201). Every
 * session opened with the old password must be dead once the change has answered: its access
 * token 401 at the gateway within a second, its refresh token refused.
 */
let stack: TestStack;
let api: Client;

beforeAll(async () => {
  // The loops sign in far more often than a client would: the per-address ceiling is not under test.
  stack = await startTestStack({
    env: { RATE_LIMIT_CREDENTIALS: '100000/60', RATE_LIMIT_ALL: '100000/60', RATE_LIMIT_REFRESH: '100000/60' },
  });
  api = client(stack.url);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

const LOOPS = 4;
const ROUNDS = 4;

async function aSignedUpUser(): Promise<{ id: string; user: UserInput }> {
  const user = aUser();
  const created = await signUp(api, stack, user);
  if (created.status !== 201) throw new Error(`sign-up failed: ${created.status} ${created.text}`);
  return { id: created.body.id, user };
}

/**
 * `LOOPS` loops sign in with `user`'s password back to back; once a few sessions are open, `change`
 * runs; the loops stop when it has answered. Returns its answer and every sign-in that succeeded.
 */
async function signInsRacing(user: UserInput, change: () => Promise<Reply>): Promise<{ changed: Reply; opened: Reply[] }> {
  let running = true;
  const opened: Reply[] = [];
  const loops = Array.from({ length: LOOPS }, async () => {
    while (running) {
      const reply = await signIn(api, stack, user);
      if (reply.status === 201) opened.push(reply);
    }
  });
  while (opened.length < LOOPS) await new Promise((resolve) => setTimeout(resolve, 5));
  const changed = await change();
  running = false;
  await Promise.all(loops);
  return { changed, opened };
}

/** Whether `GET /users/me` still answers 200 with `token` a second after `since` (the contract's bound). */
async function accessSurvives(token: string, since: number): Promise<boolean> {
  for (;;) {
    const reply = await api.get('/users/me', { bearer: token });
    if (reply.status === 401) return false;
    if (Date.now() - since > 1_000) return reply.status === 200;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The sessions of `opened` (but `kept`) whose access token or refresh token still works. */
async function survivors(opened: Reply[], since: number, kept?: string): Promise<{ access: number; refresh: number; of: number }> {
  const old = opened.filter((reply) => reply.body.token !== kept);
  let access = 0;
  let refresh = 0;
  for (const reply of old) {
    if (await accessSurvives(reply.body.token, since)) access += 1;
    if ((await api.post('/auth/refresh', { form: { refreshToken: reply.body.refreshToken } })).status === 201) refresh += 1;
  }
  return { access, refresh, of: old.length };
}

describe('a password change or reset racing sign-ins with the old password', () => {
  test('when the owner changes the password while old-password sign-ins run, then no session opened with the old password survives but the kept one', async () => {
    const totals = { access: 0, refresh: 0, of: 0 };
    for (let round = 0; round < ROUNDS; round++) {
      const { user } = await aSignedUpUser();
      const own = await signIn(api, stack, user);
      const newPassword = `new-password-${round}`;

      const { changed, opened } = await signInsRacing(user, () =>
        api.request('PUT', '/users/me/password', {
          basic: { user: user.email, password: user.password },
          form: { password: newPassword, access_token: own.body.token },
        }),
      );
      const since = Date.now();

      expect(changed.status).toBe(200);
      const round_ = await survivors(opened, since, own.body.token);
      totals.access += round_.access;
      totals.refresh += round_.refresh;
      totals.of += round_.of;
      expect((await api.get('/users/me', { bearer: own.body.token })).status).toBe(200);
    }

    expect(totals.of).toBeGreaterThan(ROUNDS * LOOPS);
    expect(totals).toEqual({ access: 0, refresh: 0, of: totals.of });
  }, 120_000);

  test('when a reset link is used while old-password sign-ins run, then no session opened with the old password survives', async () => {
    const totals = { access: 0, refresh: 0, of: 0 };
    for (let round = 0; round < ROUNDS; round++) {
      const { id, user } = await aSignedUpUser();
      const resetToken = await aStoredResetToken(stack.db('identity'), id);

      const { changed, opened } = await signInsRacing(user, () =>
        api.request('PUT', `/password-resets/${resetToken}`, { form: { password: `reset-password-${round}` } }),
      );
      const since = Date.now();

      expect(changed.status).toBe(200);
      const round_ = await survivors(opened, since);
      totals.access += round_.access;
      totals.refresh += round_.refresh;
      totals.of += round_.of;
    }

    expect(totals.of).toBeGreaterThan(ROUNDS * LOOPS);
    expect(totals).toEqual({ access: 0, refresh: 0, of: totals.of });
  }, 120_000);
});
