import { basic, expectProblem, MASTER, startIdentity, type IdentityHarness } from './support/identity-harness';
import { aPasswordReset, resetsOf } from './support/password-resets';

/** The reset page: what a browser gets at the link of the mail, and its form's POST. */
describe('the password reset page (GET and POST /password-resets/:token as text/html)', () => {
  let h: IdentityHarness;
  beforeAll(async () => {
    h = await startIdentity();
  });
  afterAll(() => h.close());

  const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
  const path = (token: string) => `/password-resets/${encodeURIComponent(token)}`;
  const open = (token: string) => h.call('get', path(token)).set('Accept', BROWSER_ACCEPT);
  const submit = (token: string, form: Record<string, string>) => h.call('post', path(token)).set('Accept', BROWSER_ACCEPT).type('form').send(form);
  const signIn = (email: string, password: string) => h.call('post', '/auth', MASTER).set('Authorization', basic(email, password));

  test('when a browser opens a live link, then it gets the form (no script, strict CSP, never cached), naming the account', async () => {
    const user = await h.aUser();
    const { token } = await aPasswordReset(h, user);

    const res = await open(token);

    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers['content-security-policy']).toMatch(/default-src 'none'/);
    expect(res.headers['content-security-policy']).toMatch(/form-action 'self'/);
    expect(res.headers['content-security-policy']).not.toMatch(/script-src|unsafe/);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.headers.vary).toMatch(/Accept/);
    expect(res.text).toContain('<form method="post"');
    expect(res.text).toContain('name="password"');
    expect(res.text).toContain('name="confirmation"');
    expect(res.text).toContain(user.email);
    expect(res.text).not.toMatch(/<script/i);
    expect(await resetsOf(h, user.id)).toHaveLength(1);
  });

  test('when an API client asks (Accept: */* or JSON), then it keeps the JSON answer', async () => {
    const user = await h.aUser();
    const { token } = await aPasswordReset(h, user);

    for (const accept of ['*/*', 'application/json', 'application/json, text/html']) {
      const res = await h.call('get', path(token)).set('Accept', accept);
      expect([accept, res.status, res.headers['content-type']]).toEqual([accept, 200, expect.stringMatching(/^application\/json/)]);
      expect(res.body).toMatchObject({ user: { id: user.id, email: user.email } });
    }
  });

  test('when the form is posted with the password twice, then the page says it is set, the token is used up and the new password signs in', async () => {
    const user = await h.aUser();
    const { token } = await aPasswordReset(h, user);

    const res = await submit(token, { password: 'a-page-new-password', confirmation: 'a-page-new-password' });

    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).toContain('Your password is set');
    expect(await resetsOf(h, user.id)).toEqual([]);
    expect((await signIn(user.email, 'a-page-new-password')).status).toBe(201);
    expectProblem(await signIn(user.email, user.password), 401);
  });

  test.each([
    ['the two passwords differ', { password: 'a-page-new-password', confirmation: 'another-password' }, 'not the same'],
    ['the password is too short', { password: 'short', confirmation: 'short' }, 'at least 8'],
    ['the password is missing', { password: '', confirmation: '' }, 'password'],
  ])('when %s, then 400 with the form again and why, and the token stays valid', async (_case, form, why) => {
    const user = await h.aUser();
    const { token } = await aPasswordReset(h, user);
    const before = await h.userDoc(user.id);

    const res = await submit(token, form);

    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).toContain('<form method="post"');
    expect(res.text).toContain(why);
    expect(await resetsOf(h, user.id)).toHaveLength(1);
    expect((await h.userDoc(user.id))?.passwordHash).toBe(before?.passwordHash);
  });

  test('when the link is expired or already used, then GET and POST answer the dead-link page with 404, and nothing changes', async () => {
    const user = await h.aUser();
    const expired = await aPasswordReset(h, user, { expiresAt: new Date(Date.now() - 1_000) });
    const used = await aPasswordReset(h, user);
    expect((await submit(used.token, { password: 'first-new-password', confirmation: 'first-new-password' })).status).toBe(200);
    const before = await h.userDoc(user.id);

    for (const token of [expired.token, used.token, 'not-a-token']) {
      const page = await open(token);
      const post = await submit(token, { password: 'second-new-password', confirmation: 'second-new-password' });
      for (const res of [page, post]) {
        expect(res.status).toBe(404);
        expect(res.headers['content-type']).toMatch(/^text\/html/);
        expect(res.text).toContain('expired or has already been used');
        expect(res.text).not.toContain('<form');
      }
    }
    expect((await h.userDoc(user.id))?.passwordHash).toBe(before?.passwordHash);
  });
});
