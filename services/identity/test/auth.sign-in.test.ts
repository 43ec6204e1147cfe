import { randomEmail } from '@restgate/shared/testing';
import jwt, { type JwtPayload } from 'jsonwebtoken';
import { basic, expectProblem, MASTER, startIdentity, TEST_JWT_SECRET, type IdentityHarness } from './support/identity-harness';

describe('POST /auth', () => {
  let h: IdentityHarness;
  beforeAll(async () => {
    h = await startIdentity({ JWT_TTL_SECONDS: '3600' });
  });
  afterAll(() => h.close());

  const signIn = (authorization?: string, principal = MASTER) => {
    const req = h.call('post', '/auth', principal);
    return authorization === undefined ? req : req.set('Authorization', authorization);
  };

  test('when the master key and the right Basic credentials are sent, then 201 with a signed token and the full view', async () => {
    const user = await h.aUser();

    const res = await signIn(basic(user.email, user.password));

    expect(res.status).toBe(201);
    expect(res.body.user).toEqual({
      id: user.id,
      email: user.email,
      name: user.email.split('@')[0],
      picture: expect.stringMatching(/^https:\/\/gravatar\.com\/avatar\/[0-9a-f]{32}\?d=identicon$/),
      role: 'user',
      emailVerified: false,
      createdAt: expect.any(String),
    });
    const decoded = jwt.verify(res.body.token, TEST_JWT_SECRET, {
      algorithms: ['HS256'],
      issuer: 'restgate',
      audience: 'restgate-api',
      complete: true,
    });
    const claims = decoded.payload as JwtPayload;
    expect(decoded.header.alg).toBe('HS256');
    expect(claims).toMatchObject({ sub: user.id, id: user.id, role: 'user', iss: 'restgate', aud: 'restgate-api' });
    expect(claims.jti).toEqual(expect.any(String));
    expect(claims.exp! - claims.iat!).toBe(3600);
    expect(Math.abs(claims.iat! - Date.now() / 1000)).toBeLessThan(30);
  });

  test('when an admin signs in twice, then each token carries role admin and its own jti', async () => {
    const admin = await h.aUser({ role: 'admin' });

    const [a, b] = await Promise.all([signIn(basic(admin.email, admin.password)), signIn(basic(admin.email, admin.password))]);

    const claimsA = jwt.decode(a.body.token) as JwtPayload;
    const claimsB = jwt.decode(b.body.token) as JwtPayload;
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(claimsA.role).toBe('admin');
    expect(claimsA.jti).not.toBe(claimsB.jti);
  });

  test('when the Basic e-mail differs in case and spacing, and the password holds colons, then it signs in', async () => {
    const user = await h.aUser({ password: 'pa:ss:word:' });

    const res = await signIn(basic(`  ${user.email.toUpperCase()} `, 'pa:ss:word:'));

    expect(res.status).toBe(201);
    expect(res.body.user.id).toBe(user.id);
  });

  test('when the password is wrong and when the e-mail is unknown, then the same 401 with a Basic challenge', async () => {
    const user = await h.aUser();

    const wrong = await signIn(basic(user.email, `${user.password}x`));
    const unknown = await signIn(basic(randomEmail('nobody'), user.password));

    for (const res of [wrong, unknown]) {
      expectProblem(res, 401);
      expect(res.headers['www-authenticate']).toBe('Basic realm="restgate"');
      expect(res.body.token).toBeUndefined();
    }
    const { requestId: _a, ...wrongBody } = wrong.body;
    const { requestId: _b, ...unknownBody } = unknown.body;
    expect(wrongBody).toEqual(unknownBody);
    expect(wrongBody.code).toBe('invalid_credentials');
  });

  test('when a password starts with the real 72-byte one and goes on, then 401 (no truncation)', async () => {
    const password = 'p'.repeat(72);
    const user = await h.aUser({ password });

    const res = await signIn(basic(user.email, `${password}-and-more`));
    const ok = await signIn(basic(user.email, password));

    expectProblem(res, 401);
    expect(ok.status).toBe(201);
  });

  test.each([
    ['no Authorization header', undefined],
    ['a Bearer header', 'Bearer abc.def.ghi'],
    ['a Basic header that is not base64', 'Basic !!!not-base64!!!'],
    ['a Basic header without a colon', `Basic ${Buffer.from('someone@example.com').toString('base64')}`],
    ['a Basic header with an empty password', `Basic ${Buffer.from('someone@example.com:').toString('base64')}`],
    ['a Basic header with an empty e-mail', `Basic ${Buffer.from(':password').toString('base64')}`],
    ['a bare "Basic"', 'Basic'],
  ])('when the request has %s, then 401 with a Basic challenge', async (_label, authorization) => {
    const res = await signIn(authorization);

    expectProblem(res, 401);
    expect(res.headers['www-authenticate']).toBe('Basic realm="restgate"');
  });

  test.each([
    ['no principal', 401, undefined],
    ['a user token', 403, { kind: 'user', id: 'a'.repeat(24), role: 'user' } as const],
    ['an admin token', 403, { kind: 'user', id: 'b'.repeat(24), role: 'admin' } as const],
  ])('when the caller has %s instead of the master key, then %i even with good Basic credentials', async (_label, status, principal) => {
    const user = await h.aUser();

    const res = await h.call('post', '/auth', principal).set('Authorization', basic(user.email, user.password));

    expectProblem(res, status);
    expect(res.body.token).toBeUndefined();
  });

  test('when a JSON body comes along, then it is ignored and sign-in works', async () => {
    const user = await h.aUser();

    const res = await signIn(basic(user.email, user.password)).send({ email: 'other@example.com', role: 'admin' });

    expect(res.status).toBe(201);
    expect(res.body.user).toMatchObject({ id: user.id, role: 'user' });
  });
});
