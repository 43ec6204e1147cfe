/**
 * The audit log through the stack: every action of the contract's list made through the gateway
 * (each from an address of its own, sent as `X-Forwarded-For` by a proxy the stack trusts) is
 * stored once, with that address, its request id and the right actor; a user sees only their own
 * security events; a non-admin is refused; nothing stored holds a password, token or code the
 * test used; a record edited in the database is named by `verify`; no route changes an event.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { aGitHubAccount, type FakeProvider, type GitHubAccount } from '../../services/identity/test/support/fake-providers';
import { anArticle, aUser, signIn, signUp, type UserInput } from '../support/actors';
import { TestAuthenticator } from '../support/authenticator';
import { startStackWithGitHub, type GitHubStack } from '../support/github-stack';
import { client, type Client, type Reply } from '../support/http';
import { aStoredResetToken, aStoredVerificationToken } from '../support/records';
import type { TestStack } from '../support/stack';

let withGitHub: GitHubStack;
let stack: TestStack;
let api: Client;
let github: FakeProvider<GitHubAccount>;
let admin: { id: string; token: string; user: UserInput };

/** Every value a test sent that the log must never hold. */
const secrets: string[] = [];

beforeAll(async () => {
  withGitHub = await startStackWithGitHub({
    TRUSTED_PROXIES: 'loopback',
    RATE_LIMIT_CREDENTIALS: '10000/60',
    // One wrong password, then the next try of that account from that address must wait.
    PASSWORD_BACKOFF_FREE_FAILURES: '1',
    // A refresh token used twice is reuse at once.
    REFRESH_REUSE_GRACE_SECONDS: '0',
  });
  ({ stack, github } = withGitHub);
  api = client(stack.url);
  const user = aUser();
  secrets.push(user.password);
  const created = await signUp(api, stack, user, { role: 'admin' });
  const auth = await signIn(api, stack, user);
  admin = { id: created.body.id, token: auth.body.token, user };
}, 120_000);

afterAll(() => withGitHub?.stop());

let addresses = 0;
/** A documentation address (RFC 5737) of its own for each request. */
const nextAddress = () => `198.51.100.${(++addresses % 250) + 1}`;

interface Sent {
  reply: Reply;
  ip: string;
  requestId: string;
}

/** A request from an address of its own, as a trusted proxy forwards it. */
async function from(call: (headers: Record<string, string>) => Promise<Reply>): Promise<Sent> {
  const ip = nextAddress();
  const reply = await call({ 'X-Forwarded-For': ip, 'User-Agent': 'audit-contract/1.0' });
  return { reply, ip, requestId: String(reply.headers.get('x-request-id')) };
}

/** The events with these filters once there are `count`, newest first. */
async function eventsWhere(query: Record<string, string>, count = 1, timeoutMs = 15_000): Promise<any[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await api.get('/audit-events', { bearer: admin.token, query: { limit: '100', ...query } });
    expect(res.status).toBe(200);
    if (res.body.rows.length >= count) return res.body.rows;
    if (Date.now() > deadline)
      throw new Error(`expected ${count} audit events for ${JSON.stringify(query)}, got ${JSON.stringify(res.body.rows)}`);
    await sleep(100);
  }
}

/** The one event of `type` that request made, checked for its address, request id and actor. */
async function theEventOf(sent: Sent, type: string, actor: { kind: string; id: string | null }): Promise<any> {
  expect(sent.reply.status).toBeLessThan(500);
  const rows = await eventsWhere({ requestId: sent.requestId, 'type[eq]': type });
  // Give a second copy time to show up before saying there is one.
  await sleep(150);
  const again = await eventsWhere({ requestId: sent.requestId, 'type[eq]': type });
  expect(again).toHaveLength(1);
  expect(rows[0]).toMatchObject({ type, ip: sent.ip, requestId: sent.requestId, userAgent: 'audit-contract/1.0', actor });
  return rows[0];
}

async function aUserSignedIn(): Promise<{ id: string; token: string; refreshToken: string; user: UserInput }> {
  const user = aUser();
  secrets.push(user.password);
  const created = await signUp(api, stack, user);
  const auth = await signIn(api, stack, user);
  secrets.push(auth.body.token, auth.body.refreshToken);
  return { id: created.body.id, token: auth.body.token, refreshToken: auth.body.refreshToken, user };
}

const basic = (user: UserInput) => ({ user: user.email, password: user.password });
const master = () => ({ access_token: stack.secrets.MASTER_KEY });

describe('the audit log: one event per action, with its address, request and actor', () => {
  test('sign-up, sign-in succeeded, failed and refused, refresh, refresh reuse, logout', async () => {
    const user = aUser();
    secrets.push(user.password);
    const signedUp = await from((headers) =>
      api.post('/users', { headers, form: { email: user.email, password: user.password, ...master() } }),
    );
    expect(signedUp.reply.status).toBe(201);
    const id = signedUp.reply.body.id as string;
    const created = await theEventOf(signedUp, 'users.created', { kind: 'master-key', id: null });
    expect(created).toMatchObject({ subject: { kind: 'user', id }, outcome: 'success', details: { role: 'user' } });
    await theEventOf(signedUp, 'admin.write', { kind: 'master-key', id: null });

    const ok = await from((headers) => api.post('/auth', { headers, basic: basic(user), form: master() }));
    expect(ok.reply.status).toBe(201);
    secrets.push(ok.reply.body.token, ok.reply.body.refreshToken);
    const succeeded = await theEventOf(ok, 'auth.sign_in.succeeded', { kind: 'user', id });
    expect(succeeded).toMatchObject({ subject: { kind: 'user', id }, outcome: 'success', details: { amr: ['pwd'] } });

    const wrong = await from((headers) =>
      api.post('/auth', { headers, basic: { ...basic(user), password: 'not-the-password' }, form: master() }),
    );
    expect(wrong.reply.status).toBe(401);
    const failed = await theEventOf(wrong, 'auth.sign_in.failed', { kind: 'anonymous', id: null });
    expect(failed).toMatchObject({ subject: { kind: 'user', id }, outcome: 'failure', details: { reason: wrong.reply.body.code } });

    // The back-off keys on the account and the address: wrong passwords from that address again
    // until it refuses (each one checked is a failure, each one refused unchecked a refusal).
    const refusedIp = failed.ip as string;
    let refused: Reply | undefined;
    for (let tries = 0; tries < 5 && !refused; tries += 1) {
      const res = await api.post('/auth', {
        headers: { 'X-Forwarded-For': refusedIp, 'User-Agent': 'audit-contract/1.0' },
        basic: { ...basic(user), password: 'still-not-the-password' },
        form: master(),
      });
      if (res.status === 429) refused = res;
      else expect(res.status).toBe(401);
    }
    expect(refused).toBeDefined();
    const refusal = await theEventOf(
      { reply: refused!, ip: refusedIp, requestId: String(refused!.headers.get('x-request-id')) },
      'auth.sign_in.refused',
      { kind: 'anonymous', id: null },
    );
    expect(refusal).toMatchObject({ subject: { kind: 'user', id }, outcome: 'failure', details: { reason: refused!.body.code } });

    const refreshed = await from((headers) => api.post('/auth/refresh', { headers, form: { refreshToken: ok.reply.body.refreshToken } }));
    expect(refreshed.reply.status).toBe(201);
    secrets.push(refreshed.reply.body.token, refreshed.reply.body.refreshToken);
    await theEventOf(refreshed, 'auth.refresh.succeeded', { kind: 'user', id });

    const reused = await from((headers) => api.post('/auth/refresh', { headers, form: { refreshToken: ok.reply.body.refreshToken } }));
    expect(reused.reply.status).toBe(401);
    const reuse = await theEventOf(reused, 'auth.refresh.reuse_detected', { kind: 'anonymous', id: null });
    expect(reuse).toMatchObject({ subject: { kind: 'user', id }, details: { sessionEnded: true } });

    const again = await signIn(api, stack, user);
    secrets.push(again.body.token, again.body.refreshToken);
    const out = await from((headers) => api.request('DELETE', '/auth/session', { headers, bearer: again.body.token }));
    expect(out.reply.status).toBe(204);
    await theEventOf(out, 'auth.logout', { kind: 'user', id });
  });

  test('password changed, reset requested and completed, e-mail verified', async () => {
    const { id, token, user } = await aUserSignedIn();
    const newPassword = `pw-new-${Date.now()}`;
    secrets.push(newPassword);
    const changed = await from((headers) =>
      api.request('PUT', '/users/me/password', { headers, basic: basic(user), form: { password: newPassword, access_token: token } }),
    );
    expect(changed.reply.status).toBe(200);
    await theEventOf(changed, 'auth.password.changed', { kind: 'user', id });

    const asked = await from((headers) => api.post('/password-resets', { headers, form: { email: user.email, ...master() } }));
    expect(asked.reply.status).toBe(202);
    const requested = await theEventOf(asked, 'auth.password_reset.requested', { kind: 'master-key', id: null });
    expect(requested).toMatchObject({ subject: { kind: 'user', id } });

    const resetToken = await aStoredResetToken(stack.db('identity'), id);
    const resetPassword = `pw-reset-${Date.now()}`;
    secrets.push(resetToken, resetPassword);
    const completed = await from((headers) =>
      api.request('PUT', `/password-resets/${resetToken}`, { headers, form: { password: resetPassword } }),
    );
    expect(completed.reply.status).toBe(200);
    // Whoever holds the link acts: nobody the gateway knows.
    const done = await theEventOf(completed, 'auth.password_reset.completed', { kind: 'anonymous', id: null });
    expect(done.subject).toEqual({ kind: 'user', id });

    // A second user, whose address is proven by a stored verification link.
    const other = await aUserSignedIn();
    const verificationToken = await aStoredVerificationToken(stack.db('identity'), other.id, other.user.email);
    secrets.push(verificationToken);
    const verified = await from((headers) => api.request('PUT', `/email-verifications/${verificationToken}`, { headers }));
    expect(verified.reply.status).toBe(200);
    const proven = await theEventOf(verified, 'auth.email.verified', { kind: 'anonymous', id: null });
    expect(proven.subject).toEqual({ kind: 'user', id: other.id });
  });

  test('MFA enrolled, second step failed and passed, recovery codes regenerated, MFA disabled by the user and by an admin', async () => {
    const { id, token, user } = await aUserSignedIn();
    const enrolment = await api.post('/users/me/mfa/totp', { bearer: token });
    const app = new TestAuthenticator(enrolment.body.secret);
    secrets.push(enrolment.body.secret);
    const code = await app.nextCode();
    const confirmed = await from((headers) => api.post('/users/me/mfa/totp/confirm', { headers, bearer: token, form: { code } }));
    expect(confirmed.reply.status).toBe(200);
    secrets.push(...(confirmed.reply.body.recoveryCodes as string[]));
    await theEventOf(confirmed, 'auth.mfa.enabled', { kind: 'user', id });

    const first = await signIn(api, stack, user);
    expect(first.status).toBe(401);
    const mfaToken = first.body.mfaToken as string;
    secrets.push(mfaToken);
    const wrong = await from((headers) => api.post('/auth/mfa', { headers, form: { mfaToken, code: app.wrongCode() } }));
    expect(wrong.reply.status).toBe(401);
    const failed = await theEventOf(wrong, 'auth.mfa.failed', { kind: 'anonymous', id: null });
    expect(failed).toMatchObject({ subject: { kind: 'user', id }, outcome: 'failure', details: { reason: 'invalid_mfa_code' } });

    // A recovery code: no wait for the next TOTP step.
    const recoveryCode = (confirmed.reply.body.recoveryCodes as string[])[0]!;
    const passed = await from((headers) => api.post('/auth/mfa', { headers, form: { mfaToken, recoveryCode } }));
    expect(passed.reply.status).toBe(201);
    const session = passed.reply.body.token as string;
    secrets.push(session, passed.reply.body.refreshToken);
    expect((await theEventOf(passed, 'auth.mfa.succeeded', { kind: 'user', id })).details).toEqual({ method: 'mfa' });
    const signedIn = await theEventOf(passed, 'auth.sign_in.succeeded', { kind: 'user', id });
    expect(signedIn.details.amr).toEqual(['pwd', 'mfa']);

    const renewed = await from(async (headers) =>
      api.post('/users/me/mfa/recovery-codes', { headers, bearer: session, form: { code: await app.nextCode() } }),
    );
    expect(renewed.reply.status).toBe(201);
    secrets.push(...(renewed.reply.body.recoveryCodes as string[]));
    await theEventOf(renewed, 'auth.recovery_codes.regenerated', { kind: 'user', id });

    const freshCode = (renewed.reply.body.recoveryCodes as string[])[0]!;
    const off = await from((headers) =>
      api.request('DELETE', '/users/me/mfa', { headers, basic: basic(user), form: { recoveryCode: freshCode, access_token: session } }),
    );
    expect(off.reply.status).toBe(204);
    expect((await theEventOf(off, 'auth.mfa.disabled', { kind: 'user', id })).details).toMatchObject({ by: 'user' });

    // Again on, then off by an admin.
    const other = await aUserSignedIn();
    const secondApp = new TestAuthenticator((await api.post('/users/me/mfa/totp', { bearer: other.token })).body.secret);
    expect((await api.post('/users/me/mfa/totp/confirm', { bearer: other.token, form: { code: await secondApp.nextCode() } })).status).toBe(
      200,
    );
    const byAdmin = await from((headers) => api.request('DELETE', `/users/${other.id}/mfa`, { headers, bearer: admin.token }));
    expect(byAdmin.reply.status).toBe(204);
    const disabled = await theEventOf(byAdmin, 'auth.mfa.disabled', { kind: 'admin', id: admin.id });
    expect(disabled).toMatchObject({ subject: { kind: 'user', id: other.id }, details: { by: 'admin' } });
  }, 120_000);

  test("an admin ends sessions, changes a role, writes an article and a webhook endpoint, and deletes a user; the user's next request is refused", async () => {
    const { id, token } = await aUserSignedIn();
    const ended = await from((headers) => api.request('DELETE', `/users/${id}/sessions`, { headers, bearer: admin.token }));
    expect(ended.reply.status).toBe(204);
    const revoked = await theEventOf(ended, 'auth.session.revoked', { kind: 'admin', id: admin.id });
    expect(revoked).toMatchObject({ subject: { kind: 'user', id }, details: { scope: 'all', sessions: 1 } });
    expect((await api.get('/users/me', { bearer: token })).status).toBe(401);

    const promoted = await from((headers) =>
      api.request('PATCH', `/users/${id}`, { headers, bearer: admin.token, form: { role: 'admin' } }),
    );
    expect(promoted.reply.status).toBe(200);
    expect(promoted.reply.body.role).toBe('admin');
    const roleChanged = await theEventOf(promoted, 'users.role_changed', { kind: 'admin', id: admin.id });
    expect(roleChanged).toMatchObject({ subject: { kind: 'user', id }, details: { from: 'user', to: 'admin' } });
    await theEventOf(promoted, 'admin.write', { kind: 'admin', id: admin.id });

    const written = await from((headers) => api.post('/articles', { headers, bearer: admin.token, form: anArticle() }));
    expect(written.reply.status).toBe(201);
    const write = await theEventOf(written, 'admin.write', { kind: 'admin', id: admin.id });
    expect(write).toMatchObject({
      subject: { kind: 'articles', id: written.reply.body.id },
      details: { resource: 'articles', change: 'created' },
    });

    // The webhooks service's endpoints have no change events: their writes are recorded there.
    const hook = await from((headers) =>
      api.post('/webhooks', { headers, bearer: admin.token, form: { url: 'http://127.0.0.1:9/audit', events: 'articles.created' } }),
    );
    expect(hook.reply.status).toBe(201);
    secrets.push(hook.reply.body.secret);
    const hookWrite = await theEventOf(hook, 'admin.write', { kind: 'admin', id: admin.id });
    expect(hookWrite).toMatchObject({
      subject: { kind: 'webhooks', id: hook.reply.body.id },
      details: { resource: 'webhooks', change: 'created' },
    });
    const unhooked = await from((headers) => api.request('DELETE', `/webhooks/${hook.reply.body.id}`, { headers, bearer: admin.token }));
    expect(unhooked.reply.status).toBe(204);
    expect((await theEventOf(unhooked, 'admin.write', { kind: 'admin', id: admin.id })).details).toMatchObject({ change: 'deleted' });

    const removed = await from((headers) => api.request('DELETE', `/users/${id}`, { headers, bearer: admin.token }));
    expect(removed.reply.status).toBe(204);
    expect((await theEventOf(removed, 'users.deleted', { kind: 'admin', id: admin.id })).subject).toEqual({ kind: 'user', id });
  });

  test('a GitHub sign-in that links an account records the link and the sign-in', async () => {
    const account = aGitHubAccount();
    const providerToken = github.issueToken(account);
    secrets.push(providerToken);
    const signedIn = await from((headers) => api.post('/auth/github', { headers, form: { access_token: providerToken } }));
    expect(signedIn.reply.status).toBe(201);
    const id = signedIn.reply.body.user.id as string;
    secrets.push(signedIn.reply.body.token, signedIn.reply.body.refreshToken);
    expect((await theEventOf(signedIn, 'auth.social.linked', { kind: 'user', id })).details).toMatchObject({ provider: 'github' });
    expect((await theEventOf(signedIn, 'auth.sign_in.succeeded', { kind: 'user', id })).details).toMatchObject({ amr: ['github'] });
  });
});

describe('reading the log', () => {
  test('every event that came from a request carries its address, and no stored event holds a password, token or code the tests sent', async () => {
    const stored = await stack.db('audit').collection('audit_events').find({}).toArray();
    expect(stored.length).toBeGreaterThan(30);
    const fromRequests = stored.filter((e) => e.requestId !== 'system');
    expect(fromRequests.length).toBeGreaterThan(30);
    expect(fromRequests.filter((e) => typeof e.ip !== 'string' || e.ip.length === 0)).toEqual([]);
    const text = JSON.stringify(stored);
    expect(secrets.length).toBeGreaterThan(20);
    expect(secrets.filter((secret) => text.includes(secret))).toEqual([]);
    expect(text).not.toContain(stack.secrets.MASTER_KEY);
  });

  test('a user sees their own security events only; a non-admin gets 403 on /audit-events', async () => {
    const one = await aUserSignedIn();
    const other = await aUserSignedIn();
    await eventsWhere({ 'subject.id[eq]': other.id, 'type[eq]': 'auth.sign_in.succeeded' });
    const deadline = Date.now() + 10_000;
    let mine: Reply;
    do {
      mine = await api.get('/users/me/security-events', { bearer: one.token });
      expect(mine.status).toBe(200);
    } while (!mine.body.rows.some((e: any) => e.type === 'auth.sign_in.succeeded') && Date.now() < deadline && (await sleep(100), true));
    expect(mine.body.rows.map((e: any) => e.type)).toEqual(expect.arrayContaining(['auth.sign_in.succeeded', 'users.created']));
    expect(JSON.stringify(mine.body)).not.toContain(other.id);
    expect(mine.body.rows[0]).not.toHaveProperty('hash');

    const refused = await api.get('/audit-events', { bearer: one.token });
    expect(refused.status).toBe(403);
    expect(refused.headers.get('content-type')).toContain('application/problem+json');
    expect((await api.get('/audit-events/verify', { bearer: one.token })).status).toBe(403);
  });

  test('the data API: ip, actor.id, subject.id, type[in] and at[gte] filters, count=false, and after cursors that walk every page once', async () => {
    const { id, user } = await aUserSignedIn();
    const signedIn = await from((headers) => api.post('/auth', { headers, basic: basic(user), form: master() }));
    const out = await from((headers) => api.request('DELETE', '/auth/session', { headers, bearer: signedIn.reply.body.token }));
    secrets.push(signedIn.reply.body.token, signedIn.reply.body.refreshToken);
    await theEventOf(out, 'auth.logout', { kind: 'user', id });

    const byIp = await eventsWhere({ 'ip[eq]': signedIn.ip });
    expect(byIp.map((e) => e.type)).toEqual(['auth.sign_in.succeeded']);
    const mine = await eventsWhere({ 'actor.id[eq]': id, 'type[in]': 'auth.sign_in.succeeded,auth.logout' }, 3);
    expect(mine.map((e) => e.type).sort()).toEqual(['auth.logout', 'auth.sign_in.succeeded', 'auth.sign_in.succeeded']);
    expect(mine.every((e) => e.actor.id === id)).toBe(true);
    // Newest first: the last of `mine` is the earliest; from its time on, every one of them.
    const fromEarliest = await eventsWhere({ 'subject.id[eq]': id, 'at[gte]': mine[mine.length - 1].at }, 3);
    expect(fromEarliest.map((e) => e.id)).toEqual(expect.arrayContaining(mine.map((e) => e.id)));
    expect(fromEarliest.every((e) => e.at >= mine[mine.length - 1].at)).toBe(true);

    const uncounted = await api.get('/audit-events', { bearer: admin.token, query: { 'subject.id[eq]': id, count: 'false', limit: '2' } });
    expect(uncounted.status).toBe(200);
    expect(uncounted.body).not.toHaveProperty('count');
    const seen: string[] = [];
    let next: string | undefined = '/audit-events?limit=2&subject.id%5Beq%5D=' + id;
    for (let pages = 0; next && pages < 20; pages++) {
      const page = await api.get(next.replace(/^.*?\/audit-events/, '/audit-events'), { bearer: admin.token });
      expect(page.status).toBe(200);
      seen.push(...page.body.rows.map((e: any) => e.id));
      next = /<([^>]+)>; rel="next"/.exec(page.headers.get('link') ?? '')?.[1];
    }
    const all = await eventsWhere({ 'subject.id[eq]': id });
    expect(seen).toEqual(all.map((e) => e.id));
    expect(new Set(seen).size).toBe(seen.length);
    const bad = await api.get('/audit-events', { bearer: admin.token, query: { 'ip[gt]': '1' } });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: 'validation_failed' });
  });

  test('no route changes or deletes an event (405), and the export streams NDJSON', async () => {
    const [latest] = await eventsWhere({ limit: '1' });
    for (const method of ['PUT', 'PATCH', 'DELETE']) {
      const res = await api.request(method, `/audit-events/${latest.id}`, { bearer: admin.token, form: { type: 'x' } });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toContain('GET');
    }
    expect((await api.get(`/audit-events/${latest.id}`, { bearer: admin.token })).body).toEqual(latest);
    const since = new Date(Date.now() - 3_600_000).toISOString();
    const exported = await api.get('/audit-events/export', { bearer: admin.token, query: { 'at[gte]': since } });
    expect(exported.status).toBe(200);
    expect(exported.headers.get('content-type')).toContain('application/x-ndjson');
    const lines = exported.text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.length).toBeGreaterThan(30);
    expect(lines.map((e) => e.seq)).toEqual([...lines.map((e) => e.seq)].sort((a, b) => a - b));
    expect(lines.find((e) => e.id === latest.id)).toEqual(latest);
  });

  test('the chain verifies; an event edited in the database is named by verify', async () => {
    const before = await api.get('/audit-events/verify', { bearer: admin.token });
    expect(before.status).toBe(200);
    expect(before.body).toMatchObject({ ok: true, broken: null });
    expect(before.body.checked).toBeGreaterThan(30);

    const events = stack.db('audit').collection('audit_events');
    const victim = (await events.find({ type: 'auth.sign_in.failed' }).sort({ _id: 1 }).limit(1).toArray())[0]!;
    await events.updateOne({ _id: victim._id }, { $set: { 'details.reason': 'nothing_happened' } });
    try {
      const after = await api.get('/audit-events/verify', { bearer: admin.token });
      expect(after.body).toMatchObject({ ok: false, broken: { seq: victim._id, id: victim.eventId, reason: 'hash_mismatch' } });
      // A range after the edit still holds.
      const later = await api.get('/audit-events/verify', { bearer: admin.token, query: { from: String(Number(victim._id) + 1) } });
      expect(later.body).toMatchObject({ ok: true });
    } finally {
      await events.updateOne({ _id: victim._id }, { $set: { details: victim.details } });
    }
  });
});
