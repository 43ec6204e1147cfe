import request from 'supertest';
import type { OpenApiDocument } from '@restgate/shared/openapi';
import { validateOpenApiDocument } from '@restgate/shared/testing';
import {
  aGitHubAccount,
  aGoogleAccount,
  startFakeGoogle,
  unreachableUrl,
  type FakeProvider,
  type GoogleAccount,
} from './support/fake-providers';
import { expectProblem, startIdentity, type IdentityHarness } from './support/identity-harness';

describe('POST /auth/:provider when the provider fails, and which providers exist', () => {
  let h: IdentityHarness;
  let google: FakeProvider<GoogleAccount>;

  beforeAll(async () => {
    google = await startFakeGoogle();
    // GitHub is down; Facebook is not enabled; every provider call has 300 ms.
    h = await startIdentity({
      SOCIAL_PROVIDERS: 'github,google',
      GITHUB_API_URL: await unreachableUrl(),
      GOOGLE_API_URL: google.url,
      SOCIAL_TIMEOUT_MS: '300',
    });
  });
  afterAll(async () => {
    await h.close();
    await google.close();
  });
  afterEach(() => google.setOutage(null));

  const signInWith = (provider: string, token: string) => h.call('post', `/auth/${provider}`).set('Authorization', `Bearer ${token}`);
  const expectNoToken = (body: unknown, token: string) => expect(JSON.stringify(body)).not.toContain(token);

  test('when the provider cannot be reached, then 502 provider_unreachable, without the token in the answer', async () => {
    const token = `tok_${aGitHubAccount().login}`;

    const res = await signInWith('github', token);

    expectProblem(res, 502);
    expect(res.body.code).toBe('provider_unreachable');
    expect(res.body.detail).toMatch(/GitHub/);
    expectNoToken(res.body, token);
  });

  test.each([
    [503, 'answers 503'],
    [500, 'answers 500'],
    [200, 'answers 200 with a body that is not a profile'],
  ])('when the provider %s, then 502 provider_failed', async (status) => {
    const account = aGoogleAccount('any-client');
    const token = google.issueToken(account);
    google.setOutage(status);

    const res = await signInWith('google', token);

    expectProblem(res, 502);
    expect(res.body.code).toBe('provider_failed');
    expectNoToken(res.body, token);
    expect(await h.db.collection('users').countDocuments({ email: account.email })).toBe(0);
  });

  test('when the provider answers after the deadline, then 504 provider_timeout', async () => {
    const token = google.issueToken(aGoogleAccount('any-client'), { delayMs: 3_000 });

    const res = await signInWith('google', token);

    expectProblem(res, 504);
    expect(res.body.code).toBe('provider_timeout');
    expectNoToken(res.body, token);
  });

  test("when Google has no client id configured, then any client's token signs in (the operator was warned at start)", async () => {
    const account = aGoogleAccount('whatever-client.apps.googleusercontent.com');

    const res = await signInWith('google', google.issueToken(account));

    expect(res.status).toBe(201);
    expect(res.body.user.email).toBe(account.email);
  });

  test('when a disabled provider is asked, then 404 route_not_found', async () => {
    const res = await signInWith('facebook', 'tok_anything');

    expectProblem(res, 404);
    expect(res.body.code).toBe('route_not_found');
  });

  test('when the API document is read, then it has the enabled providers only, at level provider, and is valid OpenAPI', async () => {
    const doc = (await request(h.app).get('/openapi.json').expect(200)).body as OpenApiDocument;

    expect(validateOpenApiDocument(doc)).toEqual({ valid: true, errors: [] });
    expect(
      Object.keys(doc.paths)
        .filter((p) => p.startsWith('/auth/'))
        .sort(),
    ).toEqual(['/auth/github', '/auth/google', '/auth/refresh', '/auth/session']);
    expect(doc.paths['/auth/github']?.post).toMatchObject({ 'x-restgate-level': 'provider', security: [{ providerToken: [] }] });
    expect(Object.keys(doc.paths['/auth/github']?.post?.responses ?? {})).toEqual(
      expect.arrayContaining(['201', '400', '401', '409', '422', '502', '504']),
    );
  });
});
