import { aGitHubAccount } from './support/fake-providers';
import { basic, MASTER, startIdentityWithGitHub } from './support/identity-harness';
import { aPasswordReset, verificationTokenOf } from './support/password-resets';

/**
 * Answers that carry tokens (sessions), or that answer for a token in the URL (the mailed links),
 * must never be kept by a browser or a shared cache: `Cache-Control: no-store` on each, failures
 * included (a failed lookup still tells whether a token was live).
 */
describe('Cache-Control: no-store on answers that carry or look up tokens', () => {
  let h: Awaited<ReturnType<typeof startIdentityWithGitHub>>;
  beforeAll(async () => {
    h = await startIdentityWithGitHub();
  });
  afterAll(() => h.close());

  const expectNoStore = (res: { status: number; headers: Record<string, string> }, status: number) => {
    expect({ status: res.status, cacheControl: res.headers['cache-control'] }).toEqual({ status, cacheControl: 'no-store' });
  };

  test('when a user signs in, refreshes, and signs in with GitHub, then each answer (201 or 401) says no-store', async () => {
    const user = await h.aUser();

    const signedIn = await h.call('post', '/auth', MASTER).set('Authorization', basic(user.email, user.password));
    const wrong = await h.call('post', '/auth', MASTER).set('Authorization', basic(user.email, 'not-the-password'));
    const refreshed = await h.call('post', '/auth/refresh').send({ refreshToken: signedIn.body.refreshToken });
    const social = await h.call('post', '/auth/github').set('Authorization', `Bearer ${h.github.issueToken(aGitHubAccount())}`);

    expectNoStore(signedIn, 201);
    expectNoStore(wrong, 401);
    expectNoStore(refreshed, 201);
    expectNoStore(social, 201);
  });

  test('when a reset link and a verification link are looked up, as JSON or as a page, live or dead, then each answer says no-store', async () => {
    const user = await h.aUser();
    const { token: resetToken } = await aPasswordReset(h, user);
    const verificationToken = await verificationTokenOf(h, user.id);
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
