import { createHash } from 'node:crypto';
import { randomEmail, uniqueSuffix } from '@restgate/shared/testing';
import { verifySync } from '@node-rs/argon2';
import { ANONYMOUS, expectProblem, MASTER, startIdentity, type IdentityHarness } from './support/identity-harness';
import type { Principal } from '@restgate/shared';

/** A well-formed, unique address of `length` characters (198 to 260): local part 64, labels at most 63. */
function emailOfLength(length: number): string {
  return `${uniqueSuffix()}${'a'.repeat(52)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(length - 197)}.com`;
}

describe('POST /users', () => {
  let h: IdentityHarness;
  beforeAll(async () => {
    h = await startIdentity();
  });
  afterAll(() => h.close());

  const users = () => h.db.collection('users');

  test('when the master key sends an e-mail and a password as a form, then 201 with the full view and defaults, and an Argon2id hash at the configured costs is stored', async () => {
    const email = randomEmail('ada');
    const password = `secret-${uniqueSuffix()}`;

    const res = await h.call('post', '/users', MASTER).type('form').send({ email, password });

    const md5 = createHash('md5').update(email).digest('hex');
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{24}$/),
      email,
      name: email.split('@')[0],
      picture: `https://gravatar.com/avatar/${md5}?d=identicon`,
      role: 'user',
      emailVerified: false,
      createdAt: expect.any(String),
    });
    expect(new Date(res.body.createdAt).toISOString()).toBe(res.body.createdAt);
    const doc = await h.userDoc(res.body.id);
    expect(doc).toMatchObject({ email, role: 'user', name: email.split('@')[0] });
    expect(doc).not.toHaveProperty('password');
    expect(doc?.passwordHash).toMatch(/^\$argon2id\$v=19\$m=1024,t=1,p=1\$/);
    expect(verifySync(doc?.passwordHash, password)).toBe(true);
  });

  test('when name, picture and role are given as JSON, then they are kept', async () => {
    const email = randomEmail();
    const body = { email, password: 'long-enough', name: 'Grace Hopper', picture: 'https://example.com/grace.png', role: 'admin' };

    const res = await h.call('post', '/users', MASTER).send(body);

    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ email, name: 'Grace Hopper', picture: 'https://example.com/grace.png', role: 'admin' });
    expect(await h.userDoc(res.body.id)).toMatchObject({ name: 'Grace Hopper', role: 'admin' });
  });

  test('when the e-mail has spaces and capitals, then it is stored trimmed and lower-cased, and the Gravatar uses that form', async () => {
    const email = randomEmail('Mixed');
    const sent = `  ${email.toUpperCase()}  `;

    const res = await h.call('post', '/users', MASTER).type('form').send({ email: sent, password: 'long-enough' });

    const lower = email.toLowerCase();
    expect(res.status).toBe(201);
    expect(res.body.email).toBe(lower);
    expect(res.body.picture).toBe(`https://gravatar.com/avatar/${createHash('md5').update(lower).digest('hex')}?d=identicon`);
    expect((await h.userDoc(res.body.id))?.email).toBe(lower);
  });

  test('when the e-mail is exactly 254 characters, then it is accepted', async () => {
    const email = emailOfLength(254);

    const res = await h.call('post', '/users', MASTER).type('form').send({ email, password: 'long-enough' });

    expect(res.status).toBe(201);
    expect((await h.userDoc(res.body.id))?.email).toBe(email);
  });

  test('when the password is 200 multi-byte characters (400 bytes), then it is accepted and the whole of it is what counts', async () => {
    const password = 'é'.repeat(199) + 'x';
    const res = await h.call('post', '/users', MASTER).send({ email: randomEmail(), password });

    expect(res.status).toBe(201);
    const hash = (await h.userDoc(res.body.id))?.passwordHash;
    expect(verifySync(hash, password)).toBe(true);
    expect(verifySync(hash, 'é'.repeat(199) + 'y')).toBe(false);
  });

  test('when the password is 256 emoji (512 UTF-16 units), then it is accepted: the limit counts characters', async () => {
    const res = await h.call('post', '/users', MASTER).send({ email: randomEmail(), password: '🔑'.repeat(256) });

    expect(res.status).toBe(201);
  });

  describe('access', () => {
    test.each([
      ['no principal', 401, undefined],
      ['an anonymous principal', 401, ANONYMOUS],
      ['a user token', 403, { kind: 'user', id: 'a'.repeat(24), role: 'user' } as const],
      ['an admin token (not the master key)', 403, { kind: 'user', id: 'b'.repeat(24), role: 'admin' } as const],
    ])('when the caller has %s, then %i and nothing is written', async (_label, status, principal) => {
      const email = randomEmail();

      const res = await h.call('post', '/users', principal).type('form').send({ email, password: 'long-enough' });

      expectProblem(res, status);
      if (status === 401) expect(res.headers['www-authenticate']).toBe('Bearer realm="restgate"');
      expect(await users().findOne({ email })).toBeNull();
    });

    test('when the principal header was signed for another path, then it counts as anonymous (401)', async () => {
      const { asPrincipal } = await import('@restgate/shared/testing');
      const res = await h
        .call('post', '/users')
        .set(asPrincipal(MASTER, 'POST', '/auth'))
        .type('form')
        .send({ email: randomEmail(), password: 'long-enough' });

      expectProblem(res, 401);
    });
  });

  describe('validation', () => {
    test.each([
      ['an invalid e-mail', { email: 'not-an-email', password: 'long-enough' }, 'email'],
      ['an e-mail without a domain dot', { email: 'someone@localhost', password: 'long-enough' }, 'email'],
      ['a 255-character e-mail', { email: emailOfLength(255), password: 'long-enough' }, 'email'],
      ['no e-mail', { password: 'long-enough' }, 'email'],
      ['no password', { email: 'x@example.com' }, 'password'],
      ['a password shorter than 8 characters', { email: 'x@example.com', password: 'short77' }, 'password'],
      ['a password of 257 characters', { email: 'x@example.com', password: 'a'.repeat(257) }, 'password'],
      ['a password of 257 multi-byte characters', { email: 'x@example.com', password: 'é'.repeat(257) }, 'password'],
      ['an unknown role', { email: 'x@example.com', password: 'long-enough', role: 'root' }, 'role'],
      [
        'a picture that is not an http(s) URL',
        { email: 'x@example.com', password: 'long-enough', picture: 'javascript:alert(1)' },
        'picture',
      ],
      ['an empty name', { email: 'x@example.com', password: 'long-enough', name: '   ' }, 'name'],
    ] as Array<[string, Record<string, string | undefined>, string]>)(
      'when the form has %s, then 400 naming the param',
      async (_label, form, param) => {
        const marker = `marker-${uniqueSuffix()}`;
        const res = await h
          .call('post', '/users', MASTER)
          .type('form')
          .send({ ...form, email: form.email?.replace('x@', `${marker}@`) });

        expectProblem(res, 400, param);
        expect(res.body.errors).toEqual(
          expect.arrayContaining([expect.objectContaining({ param, message: expect.any(String), rule: expect.any(String) })]),
        );
        expect(await users().findOne({ email: { $regex: marker } })).toBeNull();
      },
    );

    test('when the password is 257 characters, then the message names the limit of 256', async () => {
      const res = await h.call('post', '/users', MASTER).send({ email: randomEmail(), password: 'ü'.repeat(257) });

      expectProblem(res, 400, 'password');
      expect(res.body.message).toMatch(/256/);
    });

    test('when the form carries email[$ne]=x, then it is a key of its own: 400 for the missing e-mail, and nothing is written', async () => {
      const name = `operator-${uniqueSuffix()}`;

      const res = await h.call('post', '/users', MASTER).type('form').send(`email[$ne]=x&password=long-enough&name=${name}`);

      expectProblem(res, 400, 'email');
      expect(await users().findOne({ name })).toBeNull();
    });

    test('when JSON sends an operator object as the e-mail, then 400 and nothing is written', async () => {
      const name = `operator-${uniqueSuffix()}`;

      const res = await h.call('post', '/users', MASTER).send({ email: { $ne: 'x' }, password: 'long-enough', name });

      expectProblem(res, 400, 'email');
      expect(await users().findOne({ name })).toBeNull();
    });

    test('when the JSON is malformed, then 400', async () => {
      const res = await h.call('post', '/users', MASTER).set('content-type', 'application/json').send('{"email":');

      expectProblem(res, 400);
    });
  });

  describe('taken e-mail', () => {
    test('when the e-mail is registered, also in another case, then 409 naming email and only the first user exists', async () => {
      const email = randomEmail();
      const first = await h.call('post', '/users', MASTER).type('form').send({ email, password: 'long-enough' });

      const res = await h
        .call('post', '/users', MASTER)
        .type('form')
        .send({ email: ` ${email.toUpperCase()}`, password: 'other-password' });

      expect(first.status).toBe(201);
      expectProblem(res, 409, 'email');
      expect(res.body.code).toBe('email_taken');
      expect(JSON.stringify(res.body)).not.toMatch(/E11000|duplicate|collection/i);
      expect(await users().countDocuments({ email })).toBe(1);
    });

    test('when two sign-ups for one e-mail race, then exactly one wins', async () => {
      const email = randomEmail();

      const results = await Promise.all(
        [1, 2, 3].map(() => h.call('post', '/users', MASTER).type('form').send({ email, password: 'long-enough' })),
      );

      expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409]);
      expect(await users().countDocuments({ email })).toBe(1);
    });
  });
});

describe('POST /users opened to the public by ROUTE_POLICY', () => {
  let h: IdentityHarness;
  beforeAll(async () => {
    h = await startIdentity({ ROUTE_POLICY: 'POST /users=public' });
  });
  afterAll(() => h.close());

  test('when an anonymous caller signs up, then 201 with role user', async () => {
    const email = randomEmail();

    const res = await h.call('post', '/users').type('form').send({ email, password: 'long-enough' });

    expect(res.status).toBe(201);
    expect(res.body.role).toBe('user');
    expect((await h.userDoc(res.body.id))?.role).toBe('user');
  });

  test('when an anonymous caller asks for role admin, then 403 and nothing is written', async () => {
    const email = randomEmail();

    const res = await h.call('post', '/users').type('form').send({ email, password: 'long-enough', role: 'admin' });

    expectProblem(res, 403);
    expect(res.body.code).toBe('role_not_grantable');
    expect(await h.db.collection('users').findOne({ email })).toBeNull();
  });

  test('when a plain user asks for role admin, then 403', async () => {
    const user = await h.aUser();

    const res = await h
      .call('post', '/users', user.principal)
      .type('form')
      .send({ email: randomEmail(), password: 'long-enough', role: 'admin' });

    expectProblem(res, 403);
  });
});

describe('ADMIN_SIGN_UP: who may create admins', () => {
  const ADMIN: Principal = { kind: 'user', id: 'c'.repeat(24), role: 'admin', amr: ['pwd', 'otp'] };
  const signUpAdmin = (h: IdentityHarness, principal: Principal) =>
    h.call('post', '/users', principal).send({ email: randomEmail(), password: 'long-enough', role: 'admin' });

  test.each([
    ['unset, in development: the master key or an admin', {}, 201, 201],
    ['unset, with NODE_ENV=production: only an admin', { NODE_ENV: 'production' }, 403, 201],
    ['master, set explicitly in production', { NODE_ENV: 'production', ADMIN_SIGN_UP: 'master' }, 201, 201],
    ['admin', { ADMIN_SIGN_UP: 'admin' }, 403, 201],
    ['off', { ADMIN_SIGN_UP: 'off' }, 403, 403],
  ])('%s: the master key %i, an admin %i', async (_label, env, byMaster, byAdmin) => {
    // An admin's token reaches POST /users where an operator opened it (ROUTE_POLICY); the master key always does.
    const h = await startIdentity({ ROUTE_POLICY: 'POST /users=public', ...env });
    try {
      const master = await signUpAdmin(h, MASTER);
      const admin = await signUpAdmin(h, ADMIN);

      expect([master.status, admin.status]).toEqual([byMaster, byAdmin]);
      if (byMaster === 403) expect(master.body.code).toBe('role_not_grantable');
      // A user of the default role is still the master key's to create.
      expect((await h.call('post', '/users', MASTER).send({ email: randomEmail(), password: 'long-enough' })).status).toBe(201);
    } finally {
      await h.close();
    }
  });

  test('when an admin without the second factor MFA_REQUIRED_ROLES asks for creates an admin, then 401 mfa_required', async () => {
    const h = await startIdentity({ ROUTE_POLICY: 'POST /users=public', ADMIN_SIGN_UP: 'admin' });
    try {
      const weak = await signUpAdmin(h, { kind: 'user', id: 'd'.repeat(24), role: 'admin', needsSecondFactor: true });
      expectProblem(weak, 401);
      expect(weak.body.code).toBe('mfa_required');
    } finally {
      await h.close();
    }
  });
});
