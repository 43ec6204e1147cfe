import jwt from 'jsonwebtoken';
import { ObjectId } from 'mongodb';
import { aGitHubAccount, type FakeProvider, type GitHubAccount } from '../../services/identity/test/support/fake-providers';
import { anArticle, aUser, signIn, signUp } from '../support/actors';
import { startStackWithGitHub, type GitHubStack } from '../support/github-stack';
import { client, type Client } from '../support/http';
import { mailedLinks } from '../support/outbox';
import { TestAuthenticator } from '../support/authenticator';
import { articleView, authResult, expectProblem, expectShape } from '../support/shapes';
import type { TestStack } from '../support/stack';

let withGitHub: GitHubStack;
let stack: TestStack;
let api: Client;
let github: FakeProvider<GitHubAccount>;

beforeAll(async () => {
  withGitHub = await startStackWithGitHub();
  ({ stack, github } = withGitHub);
  api = client(stack.url);
}, 120_000);

afterAll(() => withGitHub?.stop());

const primaryEmailOf = (account: GitHubAccount) => (account.emails as Array<{ email: string }>)[0]!.email;

describe('POST /auth/github through the gateway', () => {
  test('when a GitHub token is sent as access_token, then 201 with a user token that works on POST /articles', async () => {
    const account = aGitHubAccount();

    const reply = await api.post('/auth/github', { form: { access_token: github.issueToken(account) } });

    expect(reply.status).toBe(201);
    expectShape(reply.body, authResult, 'sign-in result');
    expect(reply.body.user).toMatchObject({ email: primaryEmailOf(account), name: account.name, role: 'user' });
    const claims = jwt.verify(reply.body.token, stack.secrets.JWT_SECRET, {
      algorithms: ['HS256'],
      issuer: stack.jwt.issuer,
      audience: stack.jwt.audience,
    }) as jwt.JwtPayload;
    expect(claims.sub).toBe(reply.body.user.id);
    const doc = await stack
      .db('identity')
      .collection('users')
      .findOne({ _id: new ObjectId(reply.body.user.id as string) });
    expect(doc).toMatchObject({ providers: { github: String(account.id) } });

    const article = await api.post('/articles', { form: { ...anArticle(), access_token: reply.body.token } });

    expect(article.status).toBe(201);
    expectShape(article.body, articleView, 'article view');
    expect(article.body.user).toEqual({ id: reply.body.user.id });
  });

  test('when the token comes as Bearer, then the gateway passes it through and the same person signs in', async () => {
    const account = aGitHubAccount();
    const first = await api.post('/auth/github', { form: { access_token: github.issueToken(account) } });

    const again = await api.post('/auth/github', { bearer: github.issueToken(account) });

    expect(again.status).toBe(201);
    expect(again.body.user.id).toBe(first.body.user.id);
  });

  test('when the token is in the query and the body, then 400 credential_ambiguous', async () => {
    const token = github.issueToken(aGitHubAccount());

    const reply = await api.post('/auth/github', { query: { access_token: token }, form: { access_token: token } });

    expectProblem(reply, 400, { code: 'credential_ambiguous' });
  });

  test('when GitHub refuses the token, then 401', async () => {
    const reply = await api.post('/auth/github', { bearer: 'tok_never-issued' });

    expectProblem(reply, 401, { code: 'provider_token_rejected' });
  });

  test('when a user made by GitHub sign-in tries HTTP Basic on POST /auth, then 401', async () => {
    const account = aGitHubAccount();
    await api.post('/auth/github', { form: { access_token: github.issueToken(account) } });

    const reply = await signIn(api, stack, { email: primaryEmailOf(account), password: 'any-password' });

    expectProblem(reply, 401, { code: 'invalid_credentials' });
  });

  test("when a stranger signed up the owner's address and the owner confirmed the mailed link, then GitHub sign-in is 409 until the owner resets the password, which ends the stranger's", async () => {
    // Arrange: the stranger signs the address up with his password; its owner confirms the link.
    const stranger = aUser();
    await signUp(api, stack, stranger);
    const [verification] = await mailedLinks(stack.outboxDir, stranger.email, 'email-verifications');
    expect((await api.request('PUT', new URL(verification!).pathname)).status).toBe(200);
    const owner = aGitHubAccount({ emails: [{ email: stranger.email, primary: true, verified: true }] });

    // Act
    const refused = await api.post('/auth/github', { bearer: github.issueToken(owner) });
    await api.post('/password-resets', { form: { email: stranger.email, access_token: stack.secrets.MASTER_KEY } });
    const [reset] = await mailedLinks(stack.outboxDir, stranger.email, 'password-resets');
    const set = await api.request('PUT', new URL(reset!).pathname, { form: { password: 'the-owners-own-password' } });
    const linked = await api.post('/auth/github', { bearer: github.issueToken(owner) });
    const strangers = await signIn(api, stack, stranger);

    // Assert
    expectProblem(refused, 409, { code: 'account_password_unproven' });
    expect(set.status).toBe(200);
    expect(linked.status).toBe(201);
    expect(linked.body.user.email).toBe(stranger.email);
    expectProblem(strangers, 401, { code: 'invalid_credentials' });
  });

  test('when a provider that is not enabled is asked, then 404', async () => {
    const reply = await api.post('/auth/google', { bearer: 'tok_anything' });

    expectProblem(reply, 404, { code: 'route_not_found' });
  });
});

describe('POST /auth/github of a user with multi-factor sign-in on', () => {
  test('when the GitHub user has MFA on, then 401 mfa_required with an mfaToken, and POST /auth/mfa with a code opens a session with amr ["github","otp"]', async () => {
    const account = aGitHubAccount();
    const first = await api.post('/auth/github', { form: { access_token: github.issueToken(account) } });
    expect(first.status).toBe(201);
    expect((jwt.decode(first.body.token) as jwt.JwtPayload).amr).toEqual(['github']);
    const enrolment = await api.post('/users/me/mfa/totp', { bearer: first.body.token });
    const app = new TestAuthenticator(enrolment.body.secret);
    expect((await api.post('/users/me/mfa/totp/confirm', { bearer: first.body.token, form: { code: await app.nextCode() } })).status).toBe(200);

    const again = await api.post('/auth/github', { form: { access_token: github.issueToken(account) } });

    expectProblem(again, 401, { code: 'mfa_required' });
    expect(again.headers.get('www-authenticate')).toBe('Bearer realm="restgate", error="insufficient_user_authentication"');
    const second = await api.post('/auth/mfa', { form: { mfaToken: again.body.mfaToken, code: await app.nextCode() } });
    expect(second.status).toBe(201);
    expect(second.body.user.id).toBe(first.body.user.id);
    expect((jwt.decode(second.body.token) as jwt.JwtPayload).amr).toEqual(['github', 'otp']);
  }, 70_000);
});
