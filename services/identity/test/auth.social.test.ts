import { createHmac } from 'node:crypto';
import { randomEmail } from '@restgate/shared/testing';
import jwt, { type JwtPayload } from 'jsonwebtoken';
import {
  aFacebookAccount,
  aGitHubAccount,
  aGoogleAccount,
  startFakeFacebook,
  startFakeGitHub,
  startFakeGoogle,
  type FacebookAccount,
  type FakeProvider,
  type GitHubAccount,
  type GoogleAccount,
} from './support/fake-providers';
import { basic, expectProblem, MASTER, startIdentity, TEST_JWT_SECRET, type IdentityHarness } from './support/identity-harness';
import { aPasswordReset, verificationTokenOf } from './support/password-resets';

const APP_ID = '1234567890';
const APP_SECRET = 'fake-app-secret-0123456789';
const OTHER_APP_ID = '9876543210';
const CLIENT_ID = 'restgate-web.apps.googleusercontent.com';

describe('POST /auth/facebook, /auth/github, /auth/google', () => {
  let h: IdentityHarness;
  let github: FakeProvider<GitHubAccount>;
  let facebook: FakeProvider<FacebookAccount>;
  let google: FakeProvider<GoogleAccount>;

  beforeAll(async () => {
    [github, facebook, google] = await Promise.all([
      startFakeGitHub(),
      startFakeFacebook({ [APP_ID]: APP_SECRET, [OTHER_APP_ID]: 'other-app-secret' }),
      startFakeGoogle(),
    ]);
    h = await startIdentity({
      SOCIAL_PROVIDERS: 'facebook,github,google',
      GITHUB_API_URL: github.url,
      FACEBOOK_API_URL: facebook.url,
      FACEBOOK_APP_ID: APP_ID,
      FACEBOOK_APP_SECRET: APP_SECRET,
      GOOGLE_API_URL: google.url,
      GOOGLE_CLIENT_ID: `other-client.apps.googleusercontent.com,${CLIENT_ID}`,
    });
  });
  afterAll(async () => {
    await h.close();
    await Promise.all([github.close(), facebook.close(), google.close()]);
  });

  const signInWith = (provider: string, token: string) => h.call('post', `/auth/${provider}`).set('Authorization', `Bearer ${token}`);
  const usersWithEmail = (email: string) => h.db.collection('users').countDocuments({ email });
  const requestsWith = (fake: FakeProvider<unknown>, token: string) =>
    fake.requests.filter((r) => r.headers.authorization?.includes(token) || [...r.query.values()].includes(token));

  describe('new and returning users', () => {
    test('when an unknown GitHub person signs in, then 201 with a token and a new user made from the GitHub profile, without a password', async () => {
      const account = aGitHubAccount();
      const email = (account.emails as { email: string }[])[0]!.email;

      const res = await signInWith('github', github.issueToken(account));

      expect(res.status).toBe(201);
      expect(res.body.user).toEqual({
        id: expect.stringMatching(/^[0-9a-f]{24}$/),
        email,
        name: account.name,
        picture: account.avatarUrl,
        role: 'user',
        emailVerified: true,
        createdAt: expect.any(String),
      });
      const claims = jwt.verify(res.body.token, TEST_JWT_SECRET, { algorithms: ['HS256'], issuer: 'restgate', audience: 'restgate-api' });
      expect(claims).toMatchObject({ sub: res.body.user.id, id: res.body.user.id, role: 'user' });
      const doc = await h.userDoc(res.body.user.id);
      expect(doc).toMatchObject({ email, providers: { github: String(account.id) }, passwordHash: null });
    });

    test('when GitHub is asked, then the token goes in the Authorization header (never the URL) with a User-Agent', async () => {
      const token = github.issueToken(aGitHubAccount());

      await signInWith('github', token).expect(201);

      const seen = requestsWith(github, token);
      expect(seen.map((r) => r.path).sort()).toEqual(['/user', '/user/emails']);
      for (const r of seen) {
        expect(r.headers.authorization).toBe(`Bearer ${token}`);
        expect(r.headers['user-agent']).toEqual(expect.any(String));
        expect([...r.query.keys()]).toEqual([]);
      }
    });

    test('when the same GitHub person signs in again, then the same user, and the name they changed since stays', async () => {
      const account = aGitHubAccount();
      const first = await signInWith('github', github.issueToken(account)).expect(201);
      const id = first.body.user.id as string;
      await h.call('patch', '/users/me', { kind: 'user', id, role: 'user' }).send({ name: 'My Own Name' }).expect(200);

      const again = await signInWith('github', github.issueToken({ ...account, name: 'Renamed On GitHub' }));

      expect(again.status).toBe(201);
      expect(again.body.user).toMatchObject({ id, name: 'My Own Name', picture: account.avatarUrl });
      expect((jwt.decode(again.body.token) as JwtPayload).sub).toBe(id);
      expect(await usersWithEmail(first.body.user.email)).toBe(1);
    });

    test('when a linked person changed their GitHub e-mail, then they still reach their user by GitHub id', async () => {
      const account = aGitHubAccount();
      const first = await signInWith('github', github.issueToken(account)).expect(201);

      const again = await signInWith('github', github.issueToken({ ...account, emails: 'forbidden' }));

      expect(again.status).toBe(201);
      expect(again.body.user.id).toBe(first.body.user.id);
      expect(again.body.user.email).toBe(first.body.user.email);
    });

    test('when two first sign-ins of the same person race, then both get the one user', async () => {
      const account = aGoogleAccount(CLIENT_ID);

      const [a, b] = await Promise.all([
        signInWith('google', google.issueToken(account)),
        signInWith('google', google.issueToken(account)),
      ]);

      expect([a.status, b.status]).toEqual([201, 201]);
      expect(a.body.user.id).toBe(b.body.user.id);
      expect(await usersWithEmail(account.email!)).toBe(1);
    });

    test('when a user made by social sign-in tries HTTP Basic, then 401 whatever the password', async () => {
      const account = aGitHubAccount();
      const { body } = await signInWith('github', github.issueToken(account)).expect(201);

      for (const password of ['', 'null', 'undefined', 'password']) {
        const res = await h.call('post', '/auth', MASTER).set('Authorization', basic(body.user.email, password));
        expectProblem(res, 401);
        expect(res.body.code).toBe('invalid_credentials');
      }
      const change = await h.call('put', '/users/me/password').set('Authorization', basic(body.user.email, 'password')).send({
        password: 'a-new-password',
      });
      expectProblem(change, 401);
    });
  });

  describe('linking by e-mail', () => {
    test('when Google vouches for the e-mail of an account whose e-mail nobody verified, then 409 account_email_unverified and the account is left alone', async () => {
      // Anyone could have registered it: linking would let the stranger's password keep working.
      const existing = await h.aUser({ name: 'Stranger' });
      const account = aGoogleAccount(CLIENT_ID, { email: existing.email, emailVerified: true });

      const res = await signInWith('google', google.issueToken(account));

      expectProblem(res, 409);
      expect(res.body).toMatchObject({ code: 'account_email_unverified', param: 'email' });
      expect(res.body.detail).toMatch(/POST \/password-resets/);
      expect((await h.userDoc(existing.id))?.providers).toBeUndefined();
      expect(await usersWithEmail(existing.email)).toBe(1);
    });

    test('when the owner has proved the address with a password reset, then the same sign-in links the account, its profile and new password kept', async () => {
      const existing = await h.aUser({ name: 'Ada' });
      const account = aGoogleAccount(CLIENT_ID, { email: existing.email.toUpperCase(), emailVerified: true });
      expect((await signInWith('google', google.issueToken(account))).status).toBe(409);
      const { token } = await aPasswordReset(h, existing);
      await h.call('put', `/password-resets/${token}`).type('form').send({ password: 'the-owners-password' }).expect(200);
      existing.password = 'the-owners-password';

      const res = await signInWith('google', google.issueToken(account));

      expect(res.status).toBe(201);
      expect(res.body.user).toMatchObject({ id: existing.id, email: existing.email, name: 'Ada' });
      expect(await h.userDoc(existing.id)).toMatchObject({
        providers: { google: account.sub },
        passwordHash: expect.stringMatching(/^\$argon2id\$/),
      });
      await h.call('post', '/auth', MASTER).set('Authorization', basic(existing.email, existing.password)).expect(201);
    });

    test("when a stranger signed the address up with his password and the owner only confirmed the mailed link, then 409 account_password_unproven: linking would keep the stranger's password working", async () => {
      // The stranger signs up the owner's address; the owner confirms the link that came to it.
      const stranger = await h.aUser();
      await h.call('put', `/email-verifications/${await verificationTokenOf(h, stranger.id)}`).expect(200);
      const owner = aGoogleAccount(CLIENT_ID, { email: stranger.email, emailVerified: true });

      const res = await signInWith('google', google.issueToken(owner));

      expectProblem(res, 409);
      expect(res.body).toMatchObject({ code: 'account_password_unproven', param: 'email' });
      expect(res.body.detail).toMatch(/POST \/password-resets/);
      expect((await h.userDoc(stranger.id))?.providers).toBeUndefined();
    });

    test("when the owner then resets the password, then the provider links, and the stranger's password no longer signs in", async () => {
      const stranger = await h.aUser();
      await h.call('put', `/email-verifications/${await verificationTokenOf(h, stranger.id)}`).expect(200);
      const owner = aGoogleAccount(CLIENT_ID, { email: stranger.email, emailVerified: true });
      const { token } = await aPasswordReset(h, stranger);
      await h.call('put', `/password-resets/${token}`).type('form').send({ password: 'the-owners-password' }).expect(200);

      const res = await signInWith('google', google.issueToken(owner));

      expect(res.status).toBe(201);
      expect(res.body.user.id).toBe(stranger.id);
      await h.call('post', '/auth', MASTER).set('Authorization', basic(stranger.email, stranger.password)).expect(401);
    });

    test('when the owner changed a password set through a reset link (their token and HTTP Basic, knowing it), then it is still theirs and the provider links', async () => {
      const user = await h.aUser();
      const { token } = await aPasswordReset(h, user);
      await h.call('put', `/password-resets/${token}`).type('form').send({ password: 'reset-password' }).expect(200);
      await h
        .call('put', `/users/${user.id}/password`, user.principal)
        .set('Authorization', basic(user.email, 'reset-password'))
        .type('form')
        .send({ password: 'changed-password' })
        .expect(200);
      const owner = aGoogleAccount(CLIENT_ID, { email: user.email, emailVerified: true });

      const res = await signInWith('google', google.issueToken(owner));

      expect(res.status).toBe(201);
      expect(res.body.user.id).toBe(user.id);
    });

    test('when Google vouches for the e-mail of an account whose address was never verified, then 409 account_email_unverified and nothing is linked', async () => {
      const existing = await h.aUser();
      const account = aGoogleAccount(CLIENT_ID, { email: existing.email, emailVerified: true });

      const res = await signInWith('google', google.issueToken(account));

      expectProblem(res, 409);
      expect(res.body.code).toBe('account_email_unverified');
      expect(res.body.detail).toContain('POST /email-verifications');
      expect((await h.userDoc(existing.id))?.providers).toBeUndefined();
      await h.call('post', '/auth', MASTER).set('Authorization', basic(existing.email, existing.password)).expect(201);
    });

    test('when the provider does not vouch for the e-mail of an existing account, then 422 and the account is left alone', async () => {
      const existing = await h.aUser();
      const account = aGoogleAccount(CLIENT_ID, { email: existing.email, emailVerified: false });

      const res = await signInWith('google', google.issueToken(account));

      expectProblem(res, 422);
      expect(res.body.code).toBe('provider_email_unverified');
      expect(res.body.detail).toMatch(/verified/);
      expect((await h.userDoc(existing.id))?.providers).toBeUndefined();
      expect(await usersWithEmail(existing.email)).toBe(1);
    });

    test('when the e-mail is unverified and nobody has it, then 422 too: no account is started with an address nobody vouched for', async () => {
      const account = aGoogleAccount(CLIENT_ID, { emailVerified: false });

      const res = await signInWith('google', google.issueToken(account));

      expectProblem(res, 422);
      expect(res.body.code).toBe('provider_email_unverified');
      expect(await usersWithEmail(account.email!)).toBe(0);
    });

    test('when GitHub lists several e-mails, then the primary verified one is used', async () => {
      const primary = randomEmail('primary');
      const account = aGitHubAccount({
        emails: [
          { email: randomEmail('secondary'), primary: false, verified: true },
          { email: primary, primary: true, verified: true },
          { email: randomEmail('unverified'), primary: false, verified: false },
        ],
      });

      const res = await signInWith('github', github.issueToken(account));

      expect(res.status).toBe(201);
      expect(res.body.user.email).toBe(primary);
    });

    test('when the GitHub primary e-mail is unverified, then 422 even if another one is verified', async () => {
      const account = aGitHubAccount({
        emails: [
          { email: randomEmail('primary'), primary: true, verified: false },
          { email: randomEmail('secondary'), primary: false, verified: true },
        ],
      });

      const res = await signInWith('github', github.issueToken(account));

      expectProblem(res, 422);
      expect(res.body.code).toBe('provider_email_unverified');
    });

    test.each([
      ['GitHub lists no e-mail', 'github', () => github.issueToken(aGitHubAccount({ emails: [] }))],
      ['the GitHub token may not read e-mails', 'github', () => github.issueToken(aGitHubAccount({ emails: 'forbidden' }))],
      ['Facebook shares no e-mail', 'facebook', () => facebook.issueToken(aFacebookAccount(APP_ID, { email: undefined }))],
      ['Google shares no e-mail', 'google', () => google.issueToken(aGoogleAccount(CLIENT_ID, { email: undefined }))],
    ])('when %s, then 422 provider_email_missing', async (_label, provider, token) => {
      const res = await signInWith(provider, token());

      expectProblem(res, 422);
      expect(res.body.code).toBe('provider_email_missing');
      expect(res.body.detail).toMatch(/e-mail/);
    });

    test('when another GitHub identity with the same verified e-mail signs in, then 409: the account stays linked to the first', async () => {
      const first = aGitHubAccount();
      const { body } = await signInWith('github', github.issueToken(first)).expect(201);
      const second = aGitHubAccount({ emails: [{ email: body.user.email, primary: true, verified: true }] });

      const res = await signInWith('github', github.issueToken(second));

      expectProblem(res, 409);
      expect(res.body.code).toBe('provider_already_linked');
      expect((await h.userDoc(body.user.id))?.providers).toEqual({ github: String(first.id) });
    });
  });

  describe('Facebook', () => {
    test('when a Facebook token of this app is sent, then a new user, checked with debug_token and appsecret_proof', async () => {
      const account = aFacebookAccount(APP_ID);
      const token = facebook.issueToken(account);

      const res = await signInWith('facebook', token);

      expect(res.status).toBe(201);
      expect(res.body.user).toMatchObject({ email: account.email, name: account.name, picture: account.pictureUrl });
      expect(await h.userDoc(res.body.user.id)).toMatchObject({ providers: { facebook: account.id } });
      const seen = requestsWith(facebook, token);
      const me = seen.find((r) => r.path === '/me');
      const debug = seen.find((r) => r.path === '/debug_token');
      expect(me?.query.get('appsecret_proof')).toBe(createHmac('sha256', APP_SECRET).update(token).digest('hex'));
      expect(me?.query.get('fields')).toBe('id,name,email,picture');
      expect(debug?.query.get('access_token')).toBe(`${APP_ID}|${APP_SECRET}`);
    });

    test('when the Facebook picture is the silhouette, then the user gets the Gravatar default', async () => {
      const account = aFacebookAccount(APP_ID, { isSilhouette: true });

      const res = await signInWith('facebook', facebook.issueToken(account));

      expect(res.status).toBe(201);
      expect(res.body.user.picture).toMatch(/^https:\/\/gravatar\.com\/avatar\//);
    });

    test('when the Facebook token was issued to another app, then 401 and no user', async () => {
      const account = aFacebookAccount(OTHER_APP_ID);

      const res = await signInWith('facebook', facebook.issueToken(account));

      expectProblem(res, 401);
      expect(res.body.code).toBe('provider_token_wrong_app');
      expect(res.headers['www-authenticate']).toBe('Bearer realm="restgate", error="invalid_token"');
      expect(await usersWithEmail(account.email!)).toBe(0);
    });
  });

  describe('Google', () => {
    test('when a Google token of a configured client is sent, then a new user from the userinfo profile', async () => {
      const account = aGoogleAccount(CLIENT_ID);
      const token = google.issueToken(account);

      const res = await signInWith('google', token);

      expect(res.status).toBe(201);
      expect(res.body.user).toMatchObject({ email: account.email, name: account.name, picture: account.picture });
      const userinfo = requestsWith(google, token).find((r) => r.path === '/oauth2/v3/userinfo');
      expect(userinfo?.headers.authorization).toBe(`Bearer ${token}`);
    });

    test('when the Google token was issued to another client, then 401 and no user', async () => {
      const account = aGoogleAccount('someone-else.apps.googleusercontent.com');

      const res = await signInWith('google', google.issueToken(account));

      expectProblem(res, 401);
      expect(res.body.code).toBe('provider_token_wrong_app');
      expect(await usersWithEmail(account.email!)).toBe(0);
    });
  });

  describe('the access token', () => {
    test.each(['facebook', 'github', 'google'])('when %s refuses the token, then 401 with an invalid_token challenge', async (provider) => {
      const res = await signInWith(provider, 'tok_not-issued-by-the-provider');

      expectProblem(res, 401);
      expect(res.body.code).toBe('provider_token_rejected');
      expect(res.headers['www-authenticate']).toBe('Bearer realm="restgate", error="invalid_token"');
    });

    test.each([
      ['Authorization: Bearer', (token: string) => h.call('post', '/auth/github').set('Authorization', `Bearer ${token}`)],
      ['a form body', (token: string) => h.call('post', '/auth/github').type('form').send({ access_token: token })],
      ['a JSON body', (token: string) => h.call('post', '/auth/github').send({ access_token: token })],
      ['the query string', (token: string) => h.call('post', `/auth/github?access_token=${encodeURIComponent(token)}`)],
    ])('when the token comes in %s, then the same person signs in', async (_label, send) => {
      const account = aGitHubAccount();
      const first = await signInWith('github', github.issueToken(account)).expect(201);

      const res = await send(github.issueToken(account));

      expect(res.status).toBe(201);
      expect(res.body.user.id).toBe(first.body.user.id);
    });

    test.each([
      [
        'the body and a Bearer header',
        (t: string) => h.call('post', '/auth/github').set('Authorization', `Bearer ${t}`).send({ access_token: t }),
      ],
      ['the query and the body', (t: string) => h.call('post', `/auth/github?access_token=${t}`).type('form').send({ access_token: t })],
      ['the query twice', (t: string) => h.call('post', `/auth/github?access_token=${t}&access_token=${t}`)],
    ])('when the token is in %s, then 400 credential_ambiguous and GitHub is not asked', async (_label, send) => {
      const token = github.issueToken(aGitHubAccount());

      const res = await send(token);

      expectProblem(res, 400);
      expect(res.body.code).toBe('credential_ambiguous');
      expect(requestsWith(github, token)).toEqual([]);
    });

    test.each([
      ['no token', undefined, 'credential_missing'],
      ['an empty access_token', 'form', 'credential_missing'],
      ['a bare Bearer', 'Bearer', 'invalid_token'],
      ['a token with a space', 'Bearer two words', 'invalid_token'],
    ])('when the request has %s, then 401 without asking the provider', async (_label, what, code) => {
      const before = github.requests.length;
      const req = h.call('post', '/auth/github');
      const res = await (what === 'form' ? req.type('form').send({ access_token: '' }) : what ? req.set('Authorization', what) : req);

      expectProblem(res, 401);
      expect(res.body.code).toBe(code);
      expect(github.requests.length).toBe(before);
    });
  });
});

describe("POST /auth/github with the OAuth app's credentials (GITHUB_CLIENT_ID, GITHUB_CLIENT_SECRET)", () => {
  const GITHUB_CLIENT = { id: 'Iv1.restgate0test0app', secret: 'github-client-secret-of-the-test-app' };
  let h: IdentityHarness;
  let github: FakeProvider<GitHubAccount>;

  beforeAll(async () => {
    github = await startFakeGitHub({ [GITHUB_CLIENT.id]: GITHUB_CLIENT.secret, 'Iv1.another-app': 'another-secret' });
    h = await startIdentity({
      SOCIAL_PROVIDERS: 'github',
      GITHUB_API_URL: github.url,
      GITHUB_CLIENT_ID: GITHUB_CLIENT.id,
      GITHUB_CLIENT_SECRET: GITHUB_CLIENT.secret,
    });
  });
  afterAll(async () => {
    await h.close();
    await github.close();
  });

  const signIn = (token: string) => h.call('post', '/auth/github').set('Authorization', `Bearer ${token}`);

  test("when the token was issued to our app, then 201, after GitHub's token check with the app's Basic credentials", async () => {
    const account = aGitHubAccount();
    const token = github.issueToken(account, { app: GITHUB_CLIENT.id });

    const res = await signIn(token);

    expect(res.status).toBe(201);
    expect(await h.userDoc(res.body.user.id)).toMatchObject({ providers: { github: String(account.id) } });
    const check = github.requests.find((r) => r.method === 'POST' && r.body.includes(token));
    expect(check?.path).toBe(`/applications/${GITHUB_CLIENT.id}/token`);
    expect(check?.headers.authorization).toBe(`Basic ${Buffer.from(`${GITHUB_CLIENT.id}:${GITHUB_CLIENT.secret}`).toString('base64')}`);
    expect(JSON.parse(check!.body)).toEqual({ access_token: token });
  });

  test.each([
    ['another GitHub app', { app: 'Iv1.another-app' }],
    ['no app the check knows', {}],
  ])('when the token was issued to %s, then 401 provider_token_wrong_app and no user', async (_label, options) => {
    const account = aGitHubAccount();

    const res = await signIn(github.issueToken(account, options));

    expectProblem(res, 401);
    expect(res.body.code).toBe('provider_token_wrong_app');
    expect(await h.db.collection('users').countDocuments({ 'providers.github': String(account.id) })).toBe(0);
  });

  test('when GitHub refuses our client secret, then 502: our configuration, not the user, is at fault', async () => {
    const wrong = await startIdentity({
      SOCIAL_PROVIDERS: 'github',
      GITHUB_API_URL: github.url,
      GITHUB_CLIENT_ID: GITHUB_CLIENT.id,
      GITHUB_CLIENT_SECRET: 'not-the-secret',
    });
    try {
      const res = await wrong.call('post', '/auth/github').set('Authorization', `Bearer ${github.issueToken(aGitHubAccount(), { app: GITHUB_CLIENT.id })}`);

      expectProblem(res, 502);
    } finally {
      await wrong.close();
    }
  });
});
