import jwt from 'jsonwebtoken';
import { aToken, aUser, signIn, signUp, type UserInput } from '../support/actors';
import { client, type Client, type Reply } from '../support/http';
import { aStoredResetToken } from '../support/records';
import { authResult, expectProblem, expectShape } from '../support/shapes';
import { startTestStack, type TestStack } from '../support/stack';

/**
 * Sessions through the gateway: every way a session ends makes its access tokens 401 at the
 * gateway within a second (the contract's bound), on every replica, without a call to identity.
 */
let stack: TestStack;
let api: Client;

beforeAll(async () => {
  stack = await startTestStack();
  api = client(stack.url);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

const ONE_SECOND = 1_000;

/** A user signed up and signed in `sessions` times; their sign-in answers. */
async function aUserWithSessions(
  sessions = 1,
  extra: Record<string, string> = {},
): Promise<{ id: string; user: UserInput; signIns: Reply[] }> {
  const user = aUser();
  const created = await signUp(api, stack, user, extra);
  if (created.status !== 201) throw new Error(`sign-up failed: ${created.status} ${created.text}`);
  const signIns: Reply[] = [];
  for (let i = 0; i < sessions; i++) {
    const reply = await signIn(api, stack, user);
    if (reply.status !== 201) throw new Error(`sign-in failed: ${reply.status} ${reply.text}`);
    signIns.push(reply);
  }
  return { id: created.body.id, user, signIns };
}

const me = (token: string, gateway: Client = api) => gateway.get('/users/me', { bearer: token });

/**
 * The status `GET /users/me` gets with `token`, polled until it is 401 or a second has passed
 * since `since` (the contract's bound for an ended session): the gateways learn of it by a
 * message, so the very first request may still race it.
 */
async function statusWithinOneSecond(token: string, since: number, gateway: Client = api): Promise<number> {
  for (;;) {
    const reply = await me(token, gateway);
    if (reply.status === 401 || Date.now() - since > ONE_SECOND) return reply.status;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('sessions through the gateway', () => {
  test('sign-in answers { token, refreshToken, expiresIn, user }, and refresh gives new tokens; a retry within the grace gets the same refresh token and the session goes on', async () => {
    const { signIns } = await aUserWithSessions();
    const first = signIns[0]!.body;
    expectShape(first, authResult, 'sign-in result');
    expect(first.expiresIn).toBe(900);

    const refreshed = await api.post('/auth/refresh', { json: { refreshToken: first.refreshToken } });
    const retried = await api.post('/auth/refresh', { form: { refreshToken: first.refreshToken } });

    expect(refreshed.status).toBe(201);
    expectShape(refreshed.body, authResult, 'refresh result');
    expect(retried.status).toBe(201);
    expectShape(retried.body, authResult, 'retried refresh result');
    expect(retried.body.refreshToken).toBe(refreshed.body.refreshToken);
    expect((await me(retried.body.token)).status).toBe(200);
    expect((await me(refreshed.body.token)).status).toBe(200);
    // The successor works, once more: the session goes on.
    expect((await api.post('/auth/refresh', { form: { refreshToken: refreshed.body.refreshToken } })).status).toBe(201);
  });

  test('when two tabs refresh with one refresh token at once, then both get 201 with the same next refresh token', async () => {
    const { signIns } = await aUserWithSessions();
    const { refreshToken } = signIns[0]!.body;

    const [a, b] = await Promise.all([0, 1].map(() => api.post('/auth/refresh', { form: { refreshToken } })));

    expect([a!.status, b!.status]).toEqual([201, 201]);
    expect(a!.body.refreshToken).toBe(b!.body.refreshToken);
    expect((await me(a!.body.token)).status).toBe(200);
    expect((await me(b!.body.token)).status).toBe(200);
  });

  test('when a used refresh token comes back after the grace (10 s by default), then 401 and the whole session ends', async () => {
    const { signIns } = await aUserWithSessions();
    const first = signIns[0]!.body;
    const refreshed = await api.post('/auth/refresh', { json: { refreshToken: first.refreshToken } });
    expect(refreshed.status).toBe(201);
    await new Promise((resolve) => setTimeout(resolve, 10_500));

    const reused = await api.post('/auth/refresh', { form: { refreshToken: first.refreshToken } });

    expectProblem(reused, 401, { code: 'invalid_refresh_token' });
    // The reuse ended the session: the tokens the refresh gave are dead too.
    expect(await statusWithinOneSecond(refreshed.body.token, Date.now())).toBe(401);
    expectProblem(await api.post('/auth/refresh', { form: { refreshToken: refreshed.body.refreshToken } }), 401);
  }, 30_000);

  test('when a user logs out, then 204 and the same access token is 401 within a second, while another session of theirs works', async () => {
    const { signIns } = await aUserWithSessions(2);
    const [a, b] = signIns.map((r) => r.body.token as string);
    expect((await me(a!)).status).toBe(200);

    const logout = await api.request('DELETE', '/auth/session', { bearer: a });
    const since = Date.now();

    expect(logout.status).toBe(204);
    expect(await statusWithinOneSecond(a!, since)).toBe(401);
    expect((await me(b!)).status).toBe(200);
    const refused = await me(a!);
    expectProblem(refused, 401, { code: 'invalid_token' });
  });

  test('GET and DELETE /users/me/sessions: both sessions listed, then all end and their tokens are 401', async () => {
    const { signIns } = await aUserWithSessions(2);
    const [a, b] = signIns.map((r) => r.body.token as string);

    const listed = await api.get('/users/me/sessions', { bearer: a });
    const ended = await api.request('DELETE', '/users/me/sessions', { bearer: a });
    const since = Date.now();

    expect(listed.status).toBe(200);
    expect(listed.body.count).toBe(2);
    expect(listed.body.rows.map((row: { id: string }) => row.id).sort()).toEqual(
      [a, b].map((t) => (jwt.decode(t!) as jwt.JwtPayload).sid).sort(),
    );
    expect(ended.status).toBe(204);
    expect(await statusWithinOneSecond(a!, since)).toBe(401);
    expect(await statusWithinOneSecond(b!, since)).toBe(401);
  });

  test("when an admin deletes a user, then that user's token can no longer create articles; a deleted admin's token can no longer list users", async () => {
    const admin = await aUserWithSessions(1, { role: 'admin' });
    const otherAdmin = await aUserWithSessions(1, { role: 'admin' });
    const victim = await aUserWithSessions();
    const adminToken = admin.signIns[0]!.body.token as string;
    const victimToken = victim.signIns[0]!.body.token as string;
    const otherAdminToken = otherAdmin.signIns[0]!.body.token as string;
    expect((await api.post('/articles', { form: { title: 'before', content: 'x' }, bearer: victimToken })).status).toBe(201);

    expect((await api.request('DELETE', `/users/${victim.id}`, { bearer: adminToken })).status).toBe(204);
    expect((await api.request('DELETE', `/users/${otherAdmin.id}`, { bearer: adminToken })).status).toBe(204);
    const since = Date.now();

    expect(await statusWithinOneSecond(victimToken, since)).toBe(401);
    expectProblem(await api.post('/articles', { form: { title: 'after', content: 'x' }, bearer: victimToken }), 401);
    expectProblem(await api.get('/users', { bearer: otherAdminToken }), 401);
    expect(await stack.db('articles').collection('articles').countDocuments({ title: 'after' })).toBe(0);
  });

  test("when a user changes their password with one session's token along, then the other sessions are 401 and that one keeps working", async () => {
    const { user, signIns } = await aUserWithSessions(3);
    const [keep, other1, other2] = signIns.map((r) => r.body.token as string);

    const changed = await api.request('PUT', '/users/me/password', {
      basic: { user: user.email, password: user.password },
      form: { password: 'a-new-password-1', access_token: keep! },
    });
    const since = Date.now();

    expect(changed.status).toBe(200);
    expect(await statusWithinOneSecond(other1!, since)).toBe(401);
    expect(await statusWithinOneSecond(other2!, since)).toBe(401);
    expect((await me(keep!)).status).toBe(200);
    expect((await signIn(api, stack, { ...user, password: 'a-new-password-1' })).status).toBe(201);
  });

  test('when a password is reset, then every session of the user is 401 and their refresh tokens are dead', async () => {
    const { id, signIns } = await aUserWithSessions(2);
    const resetToken = await aStoredResetToken(stack.db('identity'), id);

    const reset = await api.request('PUT', `/password-resets/${resetToken}`, { form: { password: 'a-reset-password' } });
    const since = Date.now();

    expect(reset.status).toBe(200);
    for (const s of signIns) expect(await statusWithinOneSecond(s.body.token, since)).toBe(401);
    for (const s of signIns) expectProblem(await api.post('/auth/refresh', { form: { refreshToken: s.body.refreshToken } }), 401);
  });

  test('two gateway replicas on one Redis both refuse a token whose session ended through either', async () => {
    const second = await stack.startGateway();
    try {
      const replica = client(second.url);
      const { signIns } = await aUserWithSessions();
      const token = signIns[0]!.body.token as string;
      expect((await me(token, replica)).status).toBe(200);

      expect((await replica.request('DELETE', '/auth/session', { bearer: token })).status).toBe(204);
      const since = Date.now();

      expect(await statusWithinOneSecond(token, since, api)).toBe(401);
      expect(await statusWithinOneSecond(token, since, replica)).toBe(401);
    } finally {
      await second.stop();
    }
  });

  test('a token signed with the real secret and a 100-year exp is 401; so is one issued longer ago than the longest lifetime', async () => {
    const { id } = await aUserWithSessions();
    const now = Math.floor(Date.now() / 1000);

    expectProblem(await me(aToken(stack, id, { iat: now, exp: now + 100 * 365 * 86_400 })), 401, { code: 'invalid_token' });
    expectProblem(await me(aToken(stack, id, { iat: now - 901, exp: now + 60 })), 401, { code: 'invalid_token' });
  });
});
