/**
 * The audit log under compose, through faults: 300 sign-ins, password-reset requests and logouts
 * while the audit service's process is SIGKILLed once and the broker restarted once. Every one of
 * them must be stored exactly once (found by its request id and type in the admin's export): none
 * missing, none twice.
 */
import { aUser } from '../support/actors';
import { allHealthy, api, compose, container, eventually, killNode, masterKey, restarted, signIn, signedUp } from './support';

const ROUNDS = 60;

beforeAll(() => allHealthy());
afterAll(() => allHealthy());

interface Action {
  type: string;
  requestId: string;
}

test('300 sign-ins, resets and logouts across a SIGKILL of audit and a broker restart: each stored once, none missing', async () => {
  const admin = aUser();
  expect((await api.post('/users', { form: { ...admin, role: 'admin', access_token: masterKey } })).status).toBe(201);
  const adminToken = (await signIn(admin)).body.token as string;
  const user = aUser();
  await signedUp(user);
  const since = new Date(Date.now() - 1_000).toISOString();

  const actions: Action[] = [];
  const done = (type: string, status: number, expected: number, headers: Headers) => {
    expect(status).toBe(expected);
    actions.push({ type, requestId: String(headers.get('x-request-id')) });
  };
  const signInOnce = async () => {
    const res = await signIn(user);
    done('auth.sign_in.succeeded', res.status, 201, res.headers);
    return res.body.token as string;
  };
  const logout = async (token: string) => {
    const res = await api.request('DELETE', '/auth/session', { bearer: token });
    done('auth.logout', res.status, 204, res.headers);
  };

  for (let round = 0; round < ROUNDS; round++) {
    if (round === 20) {
      const audit = await container('audit');
      killNode(audit.pid);
      await restarted('audit', audit);
    }
    if (round === 40) {
      const rabbit = await container('rabbitmq');
      await compose(['restart', 'rabbitmq'], 180_000);
      await restarted('rabbitmq', rabbit);
    }
    await logout(await signInOnce());
    await logout(await signInOnce());
    const reset = await api.post('/password-resets', { form: { email: user.email, access_token: masterKey } });
    done('auth.password_reset.requested', reset.status, 202, reset.headers);
  }
  expect(actions).toHaveLength(ROUNDS * 5);

  const key = (a: Action) => `${a.requestId} ${a.type}`;
  const wanted = new Set(actions.map(key));
  const stored = await eventually(
    'every action in the audit log',
    async () => {
      const res = await api.get('/audit-events/export', { bearer: adminToken, query: { 'at[gte]': since } });
      expect(res.status).toBe(200);
      const lines = res.text
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Action);
      const found = lines.filter((e) => wanted.has(key(e)));
      return actions.every((a) => found.some((e) => key(e) === key(a))) ? found : undefined;
    },
    180_000,
    1_000,
  );
  const counts = new Map<string, number>();
  for (const e of stored) counts.set(key(e), (counts.get(key(e)) ?? 0) + 1);
  const missing = actions.filter((a) => !counts.has(key(a)));
  const twice = [...counts].filter(([, n]) => n > 1);
  process.stdout.write(
    `[containers] audit across a SIGKILL and a broker restart: ${actions.length} actions, ${stored.length} events stored, ${missing.length} missing, ${twice.length} twice\n`,
  );
  expect(missing).toEqual([]);
  expect(twice).toEqual([]);
  expect(stored).toHaveLength(actions.length);

  const verified = await api.get('/audit-events/verify', { bearer: adminToken });
  expect(verified.body).toMatchObject({ ok: true, broken: null });
});
