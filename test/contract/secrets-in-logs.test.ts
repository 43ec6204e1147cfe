import {
  aFacebookAccount,
  aGitHubAccount,
  startFakeFacebook,
  startFakeGitHub,
  type FacebookAccount,
  type FakeProvider,
  type GitHubAccount,
} from '../../services/identity/test/support/fake-providers';
import { aUser, anArticle, signIn, signUp, tampered } from '../support/actors';
import { TestAuthenticator } from '../support/authenticator';
import { client, type Client } from '../support/http';
import { mailedLinks } from '../support/outbox';
import { expectProblem } from '../support/shapes';
import { startTestStack, type TestStack } from '../support/stack';
import { startReceiver } from '../support/webhook-receiver';

/**
 * No secret in any log line: the whole stack at LOG_LEVEL=trace goes through a contract flow
 * that puts every kind of secret in every place a client may put it (master key, passwords,
 * HTTP Basic, user tokens, reset tokens in paths and bodies, provider tokens, a TOTP secret, an
 * mfaToken, a recovery code, webhook signing secrets), and then every
 * line every process wrote is searched for each of them and their encodings.
 *
 * The one exception is documented (docs/accounts.md, "Where mail goes"): in outbox mode (no SMTP server,
 * the local stack) the mailer's line for a written mail carries the reset link, because that
 * log is the local developer's inbox. The test checks that it is that line and no other.
 */
const FACEBOOK_APP = { id: 'restgate-test-app', secret: 'facebook-app-secret-for-the-log-test' };

let stack: TestStack;
let api: Client;
let github: FakeProvider<GitHubAccount>;
let facebook: FakeProvider<FacebookAccount>;
let stopped = false;
const lines: Array<{ name: string; line: string }> = [];

beforeAll(async () => {
  github = await startFakeGitHub();
  facebook = await startFakeFacebook({ [FACEBOOK_APP.id]: FACEBOOK_APP.secret });
  stack = await startTestStack({
    env: {
      LOG_LEVEL: 'trace',
      SOCIAL_PROVIDERS: 'github,facebook',
      GITHUB_API_URL: github.url,
      FACEBOOK_API_URL: facebook.url,
      FACEBOOK_APP_ID: FACEBOOK_APP.id,
      FACEBOOK_APP_SECRET: FACEBOOK_APP.secret,
    },
    onLogLine: (name, line) => lines.push({ name, line }),
  });
  api = client(stack.url);
}, 120_000);

afterAll(async () => {
  try {
    if (!stopped) await stack?.stop();
  } finally {
    await Promise.all([github?.close(), facebook?.close()]);
  }
});

/** The token of the first mail to `email` whose link goes to `page` (the sign-up mail comes first). */
async function tokenFor(email: string, page: 'password-resets' | 'email-verifications'): Promise<string> {
  const [link] = await mailedLinks(stack.outboxDir, email, page);
  return new URL(link!).pathname.split('/')[2]!;
}

/** The forms a secret can take on the way: as sent, percent-encoded, Base64 (Basic). */
function encodings(secret: string): string[] {
  return [...new Set([secret, encodeURIComponent(secret), Buffer.from(secret).toString('base64')])];
}

test('when a full contract flow has run at LOG_LEVEL=trace, then no log line of any process holds a secret it used', async () => {
  const secrets: Record<string, string> = { ...stack.secrets, FACEBOOK_APP_SECRET: FACEBOOK_APP.secret };
  const user = aUser();
  secrets.password = user.password;
  secrets.basic = `${user.email}:${user.password}`;

  // Sign-up and sign-in: master key in the body, the query and a Bearer header; HTTP Basic.
  expect((await signUp(api, stack, user)).status).toBe(201);
  const auth = await signIn(api, stack, user);
  expect(auth.status).toBe(201);
  const token = auth.body.token as string;
  secrets.userToken = token;
  // Sessions, on a second sign-in of their own (reuse ends the session): a refresh token in a form
  // body and in JSON, and a reused (already rotated) one.
  const second = await signIn(api, stack, user);
  secrets.secondAccessToken = second.body.token as string;
  const firstRefresh = second.body.refreshToken as string;
  secrets.refreshToken = firstRefresh;
  const refreshed = await api.post('/auth/refresh', { form: { refreshToken: firstRefresh } });
  expect(refreshed.status).toBe(201);
  secrets.rotatedRefreshToken = refreshed.body.refreshToken as string;
  secrets.refreshedAccessToken = refreshed.body.token as string;
  expect((await api.post('/auth/refresh', { json: { refreshToken: refreshed.body.refreshToken } })).status).toBe(201);
  // A retry of the first token within the grace (REFRESH_REUSE_GRACE_SECONDS): its successor again.
  expect((await api.post('/auth/refresh', { json: { refreshToken: firstRefresh } })).status).toBe(201);
  const nobody = { email: `nobody-${user.email}` };
  expect((await api.post('/password-resets', { query: { access_token: stack.secrets.MASTER_KEY }, form: nobody })).status).toBe(202);
  expect((await api.post('/password-resets', { bearer: stack.secrets.MASTER_KEY, json: nobody })).status).toBe(202);
  expect((await signIn(api, stack, { ...user, password: `${user.password}-wrong` })).status).toBe(401);

  // The user's token in each place, a tampered one, and a malformed path.
  expect((await api.post('/articles', { form: { ...anArticle(), access_token: token } })).status).toBe(201);
  expect((await api.post('/articles', { json: { ...anArticle(), access_token: token } })).status).toBe(201);
  expect((await api.get('/articles', { query: { access_token: token } })).status).toBe(200);
  expect((await api.get('/users/me', { bearer: token })).status).toBe(200);
  expectProblem(await api.get('/users/me', { bearer: tampered(token) }), 401);
  expectProblem(await api.get('/articles', { query: { access_token: token }, bearer: token }), 400, { code: 'credential_ambiguous' });
  expectProblem(await api.get('/articles/%ZZ'), 404, { code: 'route_not_found' });

  // E-mail verification: the token of the sign-up mail in the path (GET, HTML page, PUT twice).
  const verificationToken = await tokenFor(user.email, 'email-verifications');
  secrets.verificationToken = verificationToken;
  expect((await api.get(`/email-verifications/${verificationToken}`)).status).toBe(200);
  expect((await api.get(`/email-verifications/${verificationToken}`, { headers: { accept: 'text/html' } })).status).toBe(200);
  expect((await api.request('PUT', `/email-verifications/${verificationToken}`)).status).toBe(200);
  expectProblem(await api.request('PUT', `/email-verifications/${verificationToken}`), 404);

  // Password reset: the token in the path (GET, HTML page, PUT twice, another method), the new password in the body.
  expect((await api.post('/password-resets', { form: { email: user.email, access_token: stack.secrets.MASTER_KEY } })).status).toBe(202);
  const resetToken = await tokenFor(user.email, 'password-resets');
  secrets.resetToken = resetToken;
  const newPassword = `${user.password}-new`;
  secrets.newPassword = newPassword;
  expect((await api.get(`/password-resets/${resetToken}`)).status).toBe(200);
  expect((await api.get(`/password-resets/${resetToken}`, { headers: { accept: 'text/html' } })).status).toBe(200);
  expect((await api.request('PUT', `/password-resets/${resetToken}`, { json: { password: newPassword } })).status).toBe(200);
  expectProblem(await api.request('PUT', `/password-resets/${resetToken}`, { form: { password: newPassword } }), 404);
  expectProblem(await api.request('DELETE', `/password-resets/${resetToken}`), 405);

  // Social sign-in: provider tokens in the body, the query and a Bearer header; one the provider refuses.
  const githubToken = github.issueToken(aGitHubAccount());
  const facebookToken = facebook.issueToken(aFacebookAccount(FACEBOOK_APP.id));
  secrets.githubToken = githubToken;
  secrets.facebookToken = facebookToken;
  expect((await api.post('/auth/github', { form: { access_token: githubToken } })).status).toBe(201);
  expect((await api.post('/auth/github', { query: { access_token: githubToken } })).status).toBe(201);
  expect((await api.post('/auth/facebook', { bearer: facebookToken })).status).toBe(201);
  const unknownProviderToken = `gho_${'x'.repeat(36)}`;
  secrets.unknownProviderToken = unknownProviderToken;
  expectProblem(await api.post('/auth/github', { json: { access_token: unknownProviderToken } }), 401);

  // Multi-factor sign-in: the enrolment's secret in an answer, the mfaToken in a problem body and a
  // request body, a recovery code in a body (the six-digit codes are too short to search for).
  const mfaUser = aUser();
  expect((await signUp(api, stack, mfaUser)).status).toBe(201);
  const mfaSession = await signIn(api, stack, mfaUser);
  const enrolment = await api.post('/users/me/mfa/totp', { bearer: mfaSession.body.token });
  expect(enrolment.status).toBe(201);
  secrets.totpSecret = enrolment.body.secret;
  const app = new TestAuthenticator(enrolment.body.secret);
  const confirmed = await api.post('/users/me/mfa/totp/confirm', { bearer: mfaSession.body.token, form: { code: await app.nextCode() } });
  expect(confirmed.status).toBe(200);
  const [recoveryCode] = confirmed.body.recoveryCodes as string[];
  secrets.recoveryCode = recoveryCode!;
  const challenge = await signIn(api, stack, mfaUser);
  expectProblem(challenge, 401, { code: 'mfa_required' });
  secrets.mfaToken = challenge.body.mfaToken;
  expect((await api.post('/auth/mfa', { json: { mfaToken: challenge.body.mfaToken, recoveryCode } })).status).toBe(201);
  expectProblem(await api.post('/auth/mfa', { form: { mfaToken: challenge.body.mfaToken, recoveryCode: recoveryCode! } }), 401);

  // Webhook signing secrets: made, rotated, and used to sign a delivery (to a receiver that
  // fails it once, so the retry is logged too).
  const receiver = await startReceiver();
  try {
    const admin = aUser();
    expect((await signUp(api, stack, admin, { role: 'admin' })).status).toBe(201);
    const adminToken = (await signIn(api, stack, admin)).body.token as string;
    const endpoint = await api.post('/webhooks', { bearer: adminToken, form: { url: receiver.url('/logs'), events: 'articles.*' } });
    expect(endpoint.status).toBe(201);
    secrets.webhookSecret = endpoint.body.secret;
    const rotated = await api.post(`/webhooks/${endpoint.body.id}/secret`, { bearer: adminToken });
    secrets.rotatedWebhookSecret = rotated.body.secret;
    receiver.answer('/logs', { status: 503 });
    expect((await api.post(`/webhooks/${endpoint.body.id}/test`, { bearer: adminToken })).status).toBe(202);
    await receiver.waitFor('/logs', 2);
  } finally {
    await receiver.close();
  }

  await stack.stop();
  stopped = true;

  const isOutboxMailLine = (name: string, line: string) => name === 'mailer' && /"location":/.test(line) && /written to/.test(line);
  const leaks: string[] = [];
  for (const { name, line } of lines) {
    for (const [label, secret] of Object.entries(secrets)) {
      // The documented exception: in outbox mode the mailer logs each mail's link (reset and verification).
      if ((label === 'resetToken' || label === 'verificationToken') && isOutboxMailLine(name, line)) continue;
      if (encodings(secret).some((form) => line.includes(form))) leaks.push(`${label} in ${name}: ${line.slice(0, 300)}`);
    }
  }
  expect(leaks).toEqual([]);
  // The flow was logged (so the search could find something), and the exception is one line per mail.
  expect(lines.filter(({ name }) => name === 'gateway').length).toBeGreaterThan(20);
  expect(lines.filter(({ line }) => line.includes('[redacted]')).length).toBeGreaterThan(0);
  expect(lines.filter(({ name, line }) => isOutboxMailLine(name, line) && line.includes(resetToken))).toHaveLength(1);
  expect(lines.filter(({ name, line }) => isOutboxMailLine(name, line) && line.includes(verificationToken))).toHaveLength(1);
}, 120_000);
