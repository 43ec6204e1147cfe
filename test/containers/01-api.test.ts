/**
 * The API served by `docker compose up`, black-box on the published port: the README's seed flows,
 * a listing, errors, a password reset read back from Mailpit, social login refused, and /ready.
 * Every response is checked for its status and body, and the side effects through the API.
 */
import { EventSource } from 'eventsource';
import { aUser, anArticle } from '../support/actors';
import { expectListing } from '../support/replies';
import { articleView, authResult, expectProblem, expectShape, userFullView } from '../support/shapes';
import {
  api,
  gatewayUrl,
  eventually,
  mailText,
  mailsWithSubject,
  masterKey,
  requestReset,
  resetTokenIn,
  signIn,
  signedUp,
  verificationTokenIn,
} from './support';

// Sign-up mails a verification link too: the reset tests read reset mails only.
const resetMailsTo = (email: string) => mailsWithSubject(email, 'Reset your password');

describe('the seed flows through the gateway on :9000', () => {
  test('sign-up (master key) → 201, sign-in (Basic + master key) → 201 with a token, and a wrong password → 401', async () => {
    const user = aUser();

    const created = await api.post('/users', { form: { ...user, access_token: masterKey } });
    const signedIn = await signIn(user);
    const wrong = await signIn({ ...user, password: 'not-the-password' });

    expect(created.status).toBe(201);
    expectShape(created.body, userFullView, 'user');
    expect(created.body.email).toBe(user.email);
    expect(signedIn.status).toBe(201);
    expectShape(signedIn.body, authResult, 'auth result');
    expect(signedIn.body.user.id).toBe(created.body.id);
    expectProblem(wrong, 401);
  });

  test('articles: create → read → update → list → delete, with the owner token; the public reads it', async () => {
    const { user, id } = await signedUp();
    const token = (await signIn(user)).body.token as string;
    const article = anArticle({ title: `container ${Date.now()}` });

    const created = await api.post('/articles', { form: { ...article, access_token: token } });
    const read = await api.get(`/articles/${created.body.id}`);
    const updated = await api.request('PUT', `/articles/${created.body.id}`, { bearer: token, json: { content: 'Edited' } });
    const listed = await api.get('/articles', { query: { q: article.title } });
    const deleted = await api.request('DELETE', `/articles/${created.body.id}`, { bearer: token });
    const gone = await api.get(`/articles/${created.body.id}`);

    expect(created.status).toBe(201);
    expectShape(created.body, articleView, 'article');
    expect(created.body).toMatchObject({ ...article, user: { id } });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ id: created.body.id, title: article.title, content: 'Edited' });
    const rows = expectListing(listed, articleView, { count: 1, page: 1, limit: 30 });
    expect(rows.map((r) => r.id)).toEqual([created.body.id]);
    expect(deleted.status).toBe(204);
    expectProblem(gone, 404);
  });
});

describe('errors are problem+json, never a 500', () => {
  test('no master key on sign-up → 401; a bad e-mail → 400 naming the field; an unknown route → 404; a malformed id → 4xx', async () => {
    const noKey = await api.post('/users', { form: { ...aUser() } });
    const badEmail = await api.post('/users', { form: { email: 'not-an-email', password: 'correct-horse', access_token: masterKey } });
    const unknown = await api.get('/no-such-route');
    const malformed = await api.get('/articles/not-an-id');

    expectProblem(noKey, 401);
    expectProblem(badEmail, 400, { code: 'validation_failed', param: 'email' });
    expectProblem(unknown, 404);
    expect(malformed.status).toBeGreaterThanOrEqual(400);
    expect(malformed.status).toBeLessThan(500);
    expectProblem(malformed, malformed.status);
  });

  test('a token in two places → 400', async () => {
    const { user } = await signedUp();
    const token = (await signIn(user)).body.token as string;

    const reply = await api.post('/articles', { query: { access_token: token }, bearer: token, form: anArticle() });

    expectProblem(reply, 400);
  });
});

describe('password reset, read back from Mailpit', () => {
  test('202, then one mail in Mailpit whose token shows the user, sets the password once, and the new password signs in', async () => {
    const { user, id } = await signedUp();

    const asked = await requestReset(user.email);
    const mail = await eventually('the reset mail in Mailpit', async () => (await resetMailsTo(user.email))[0]);
    const token = resetTokenIn(await mailText(mail.ID));
    const look = await api.get(`/password-resets/${token}`);
    const change = await api.request('PUT', `/password-resets/${token}`, { form: { password: 'a-fresh-password' } });
    const again = await api.request('PUT', `/password-resets/${token}`, { form: { password: 'yet-another-password' } });

    expect(asked.status).toBe(202);
    expect(mail.Subject).toBe('Reset your password');
    expect(look.status).toBe(200);
    expect(look.body.user).toMatchObject({ id, email: user.email });
    expect(change.status).toBe(200);
    expectProblem(again, 404);
    expect((await signIn({ ...user, password: 'a-fresh-password' })).status).toBe(201);
    expectProblem(await signIn(user), 401);
    expect(await resetMailsTo(user.email)).toHaveLength(1);
  });

  test('an unknown e-mail gets the same 202, and no mail', async () => {
    const { user: known } = await signedUp();
    const stranger = aUser();

    const asked = await requestReset(stranger.email);
    await requestReset(known.email);
    // The known user's mail, asked after, arriving shows the stranger's request has been handled.
    await eventually('the known user’s reset mail', async () => (await resetMailsTo(known.email))[0]);

    expect(asked.status).toBe(202);
    expect(await resetMailsTo(stranger.email)).toEqual([]);
  });
});

describe('e-mail verification, read back from Mailpit', () => {
  test('sign-up mails a link whose token, through the gateway, verifies the address once: emailVerified in /users/me', async () => {
    const { user, id } = await signedUp();

    const mail = await eventually(
      'the verification mail in Mailpit',
      async () => (await mailsWithSubject(user.email, 'Confirm your e-mail address'))[0],
    );
    const token = verificationTokenIn(await mailText(mail.ID));
    const verified = await api.request('PUT', `/email-verifications/${token}`);
    const again = await api.request('PUT', `/email-verifications/${token}`);
    const session = await signIn(user);
    const me = await api.get('/users/me', { bearer: session.body.token });

    expect(verified.status).toBe(200);
    expect(verified.body).toMatchObject({ id, emailVerified: true });
    expectProblem(again, 404);
    expect(me.body).toMatchObject({ id, emailVerified: true });
  });
});

describe('social login and readiness', () => {
  test('no provider is enabled in the compose file: POST /auth/github, /auth/google, /auth/facebook → 404 problem', async () => {
    for (const provider of ['github', 'google', 'facebook']) {
      expectProblem(await api.post(`/auth/${provider}`, { form: { access_token: 'tok_from_provider' } }), 404);
    }
  });

  test('GET /ready → 200 ready, and /health → 200 ok', async () => {
    const ready = await api.get('/ready');
    const health = await api.get('/health');

    expect(ready.status).toBe(200);
    expect(ready.body.status).toBe('ready');
    expect(Object.values(ready.body.checks ?? {}).every((c) => c === 'up')).toBe(true);
    expect(health.status).toBe(200);
    expect(health.body).toEqual({ status: 'ok' });
  });
});

describe('realtime through the containers', () => {
  test('an event stream of articles gets the created event of an article made through the gateway (compose wires the broker to articles and the gateway)', async () => {
    const { user } = await signedUp();
    const token = (await signIn(user)).body.token as string;
    const created: string[] = [];
    const source = new EventSource(`${gatewayUrl}/realtime?topics=articles`);
    try {
      await new Promise<void>((resolve, reject) => {
        source.addEventListener('connected', () => resolve());
        source.onerror = () => reject(new Error('the stream did not open'));
      });
      source.addEventListener('articles.created', (event) =>
        created.push((JSON.parse(event.data) as { record: { id: string } }).record.id),
      );
      const article = await api.post('/articles', { form: { ...anArticle(), access_token: token } });
      expect(article.status).toBe(201);
      await eventually('the created event on the stream', async () => (created.includes(article.body.id) ? true : undefined), 15_000, 100);
    } finally {
      source.close();
    }
  });
});
