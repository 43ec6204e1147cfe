import { ObjectId } from 'mongodb';
import { EMAIL_VERIFICATIONS_COLLECTION, type EmailVerificationDocument } from '../src/data/email-verification.repository';
import { aGitHubAccount, startFakeGitHub, type FakeProvider, type GitHubAccount } from './support/fake-providers';
import { basic, MASTER, startIdentity, type IdentityHarness } from './support/identity-harness';
import { aPasswordReset } from './support/password-resets';

/**
 * Answers that carry tokens (sessions), or that answer for a token in the URL (the mailed links),
 * must never be kept by a browser or a shared cache: `Cache-Control: no-store` on each, failures
 * included (a failed lookup still tells whether a token was live).
 */
describe('Cache-Control: no-store on answers that carry or look up tokens', () => {
  let h: IdentityHarness;
  let github: FakeProvider<GitHubAccount>;
  beforeAll(async () => {
    github = await startFakeGitHub();
    h = await startIdentity({ SOCIAL_PROVIDERS: 'github', GITHUB_API_URL: github.url });
  });
  afterAll(async () => {
    await h.close();
    await github.close();
  });

  const expectNoStore = (res: { status: number; headers: Record<string, string> }, status: number) => {
    expect({ status: res.status, cacheControl: res.headers['cache-control'] }).toEqual({ status, cacheControl: 'no-store' });
  };

  /** The token of the verification link sign-up queued for `userId` (read from the stored mail). */
  const verificationTokenOf = async (userId: string) => {
    const row = await h.db
      .collection<EmailVerificationDocument>(EMAIL_VERIFICATIONS_COLLECTION)
      .findOne({ userId: new ObjectId(userId) });
    return row!.mail!.envelope.data.link.split('/').pop()!;
  };

  test('when a user signs in, refreshes, and signs in with GitHub, then each answer (201 or 401) says no-store', async () => {
    const user = await h.aUser();

    const signedIn = await h.call('post', '/auth', MASTER).set('Authorization', basic(user.email, user.password));
    const wrong = await h.call('post', '/auth', MASTER).set('Authorization', basic(user.email, 'not-the-password'));
    const refreshed = await h.call('post', '/auth/refresh').send({ refreshToken: signedIn.body.refreshToken });
    const social = await h.call('post', '/auth/github').set('Authorization', `Bearer ${github.issueToken(aGitHubAccount())}`);

    expectNoStore(signedIn, 201);
    expectNoStore(wrong, 401);
    expectNoStore(refreshed, 201);
    expectNoStore(social, 201);
  });

  test('when a reset link and a verification link are looked up, as JSON or as a page, live or dead, then each answer says no-store', async () => {
    const user = await h.aUser();
    const { token: resetToken } = await aPasswordReset(h, user);
    const verificationToken = await verificationTokenOf(user.id);
    const dead = 'A'.repeat(43);

    for (const path of [`/password-resets/${resetToken}`, `/email-verifications/${verificationToken}`]) {
      expectNoStore(await h.call('get', path), 200);
      expectNoStore(await h.call('get', path).set('Accept', 'text/html'), 200);
    }
    for (const path of [`/password-resets/${dead}`, `/email-verifications/${dead}`]) {
      expectNoStore(await h.call('get', path), 404);
      expectNoStore(await h.call('get', path).set('Accept', 'text/html'), 404);
    }
  });
});
