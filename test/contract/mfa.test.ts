import jwt from 'jsonwebtoken';
import { ObjectId } from 'mongodb';
import { Secret, URI } from 'otpauth';
import { aUser, signIn, signUp, type UserInput } from '../support/actors';
import { TestAuthenticator } from '../support/authenticator';
import { client, type Client, type Reply } from '../support/http';
import { aStoredResetToken } from '../support/records';
import { authResult, expectProblem, expectShape } from '../support/shapes';
import { startTestStack, type ExtraGateway, type TestStack } from '../support/stack';

/**
 * Multi-factor sign-in through the gateway, as a client and a phone app would do it: codes are
 * computed from the secret the enrolment answered, never read from the server.
 */
let stack: TestStack;
let api: Client;

beforeAll(async () => {
  // Every sign-in here comes from one address: the gateway's per-address ceiling on credential
  // checks is not what this file tests (the per-account back-off is).
  stack = await startTestStack({ env: { RATE_LIMIT_CREDENTIALS: '10000/60' } });
  api = client(stack.url);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

const RFC_9470 = 'Bearer realm="restgate", error="insufficient_user_authentication"';
const amrOf = (token: string) => (jwt.decode(token) as { amr?: string[] }).amr;

interface Enrolled {
  id: string;
  user: UserInput;
  token: string;
  app: TestAuthenticator;
  secret: string;
  recoveryCodes: string[];
}

async function aSignedInUser(extra: Record<string, string> = {}): Promise<{ id: string; user: UserInput; token: string }> {
  const user = aUser();
  const created = await signUp(api, stack, user, extra);
  if (created.status !== 201) throw new Error(`sign-up failed: ${created.status} ${created.text}`);
  const auth = await signIn(api, stack, user);
  if (auth.status !== 201) throw new Error(`sign-in failed: ${auth.status} ${auth.text}`);
  return { id: created.body.id, user, token: auth.body.token };
}

/** A user with MFA on: enrolled and confirmed through the API. */
async function anEnrolledUser(extra: Record<string, string> = {}): Promise<Enrolled> {
  const { id, user, token } = await aSignedInUser(extra);
  const enrolment = await api.post('/users/me/mfa/totp', { bearer: token });
  if (enrolment.status !== 201) throw new Error(`enrolment failed: ${enrolment.status} ${enrolment.text}`);
  const app = new TestAuthenticator(enrolment.body.secret);
  const confirmed = await api.post('/users/me/mfa/totp/confirm', { bearer: token, form: { code: await app.nextCode() } });
  if (confirmed.status !== 200) throw new Error(`confirmation failed: ${confirmed.status} ${confirmed.text}`);
  return { id, user, token, app, secret: enrolment.body.secret, recoveryCodes: confirmed.body.recoveryCodes };
}

/** POST /auth of a user with MFA on: the 401 and its mfaToken. */
async function firstStep(user: UserInput): Promise<{ reply: Reply; mfaToken: string }> {
  const reply = await signIn(api, stack, user);
  expectProblem(reply, 401, { code: 'mfa_required' });
  return { reply, mfaToken: reply.body.mfaToken };
}

describe('enrolment', () => {
  test('when a user starts an enrolment, then 201 with a base32 secret, the otpauth URL an app reads (SHA1, 6 digits, 30 s) and a QR code as SVG; sign-in is unchanged until confirmed', async () => {
    const { user, token } = await aSignedInUser();

    const enrolment = await api.post('/users/me/mfa/totp', { bearer: token });

    expect(enrolment.status).toBe(201);
    expect(enrolment.headers.get('cache-control')).toMatch(/no-store/);
    expect(enrolment.body.secret).toMatch(/^[A-Z2-7]{32}$/);
    const parsed = URI.parse(enrolment.body.otpauthUrl);
    expect(parsed).toMatchObject({ issuer: 'restgate', label: user.email, algorithm: 'SHA1', digits: 6 });
    expect((parsed as { period?: number }).period).toBe(30);
    expect(parsed.secret.base32).toBe(enrolment.body.secret);
    expect(enrolment.body.otpauthUrl).toMatch(/^otpauth:\/\/totp\//);
    expect(enrolment.body.qrSvg).toMatch(/^<svg[^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"[\s\S]*<\/svg>\s*$/);
    expect((await api.get('/users/me', { bearer: token })).body.mfa).toEqual({ totp: false });
    expect((await signIn(api, stack, user)).status).toBe(201);
  });

  test('when the pending enrolment is confirmed with a wrong code, then 401 invalid_mfa_code and MFA stays off; with a right one, 200 and 10 distinct recovery codes, MFA is on', async () => {
    const { user, token } = await aSignedInUser();
    const enrolment = await api.post('/users/me/mfa/totp', { bearer: token });
    const app = new TestAuthenticator(enrolment.body.secret);
    const before = await api.get('/users/me', { bearer: token });

    expectProblem(await api.post('/users/me/mfa/totp/confirm', { bearer: token, form: { code: app.wrongCode() } }), 401, { code: 'invalid_mfa_code' });
    expect((await signIn(api, stack, user)).status).toBe(201);
    const confirmed = await api.post('/users/me/mfa/totp/confirm', { bearer: token, json: { code: await app.nextCode() } });

    expect(confirmed.status).toBe(200);
    expect(confirmed.body.recoveryCodes).toHaveLength(10);
    expect(new Set(confirmed.body.recoveryCodes).size).toBe(10);
    const after = await api.get('/users/me', { bearer: token });
    expect(after.body.mfa).toEqual({ totp: true });
    expect(after.headers.get('etag')).not.toBe(before.headers.get('etag'));
    await firstStep(user);
  });

  test('when MFA is on, then a new enrolment is 409 mfa_already_on; a confirmation without a pending enrolment is 409 mfa_not_pending', async () => {
    const enrolled = await anEnrolledUser();
    const fresh = await aSignedInUser();

    expectProblem(await api.post('/users/me/mfa/totp', { bearer: enrolled.token }), 409, { code: 'mfa_already_on' });
    expectProblem(await api.post('/users/me/mfa/totp/confirm', { bearer: fresh.token, form: { code: '123456' } }), 409, { code: 'mfa_not_pending' });
  });

  test('when a code is malformed, or both or neither of code and recoveryCode are sent, then 400', async () => {
    const { token } = await aSignedInUser();
    await api.post('/users/me/mfa/totp', { bearer: token });

    expectProblem(await api.post('/users/me/mfa/totp/confirm', { bearer: token, form: { code: '12345a' } }), 400, { param: 'code' });
    expectProblem(await api.post('/auth/mfa', { form: { mfaToken: 'x', code: '123456', recoveryCode: 'abcde-fghij' } }), 400);
    expectProblem(await api.post('/auth/mfa', { form: { mfaToken: 'x' } }), 400);
  });

  test('the TOTP secret and the recovery codes are not stored in the clear', async () => {
    const enrolled = await anEnrolledUser();
    const db = stack.db('identity');

    const everything: unknown[] = [];
    for (const { name } of await db.listCollections().toArray()) everything.push(...(await db.collection(name).find({}).toArray()));
    const stored = JSON.stringify(everything);

    expect(stored).toContain(enrolled.id); // the user's records are there…
    expect(stored).not.toContain(enrolled.secret); // …but not the secret, in base32
    expect(stored.toLowerCase()).not.toContain(enrolled.secret.toLowerCase());
    const hex = Buffer.from(Secret.fromBase32(enrolled.secret).buffer).toString('hex');
    expect(stored).not.toContain(hex); // nor its bytes in hex
    for (const code of enrolled.recoveryCodes) {
      expect(stored).not.toContain(code);
      expect(stored).not.toContain(code.replace('-', ''));
    }
    const factor = await db.collection('mfa_factors').findOne({ _id: new ObjectId(enrolled.id) as never });
    expect(factor).not.toBeNull();
  });
});

describe('sign-in with a second factor', () => {
  test('when a user with MFA on signs in, then 401 mfa_required with RFC 9470 WWW-Authenticate and an mfaToken, and no session opens', async () => {
    const enrolled = await anEnrolledUser();
    const sessionsBefore = (await api.get('/users/me/sessions', { bearer: enrolled.token })).body.count;

    const { reply, mfaToken } = await firstStep(enrolled.user);

    expect(reply.headers.get('www-authenticate')).toBe(RFC_9470);
    expect(mfaToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(reply.body).not.toHaveProperty('token');
    expect(reply.body).not.toHaveProperty('refreshToken');
    expect((await api.get('/users/me/sessions', { bearer: enrolled.token })).body.count).toBe(sessionsBefore);
  });

  test('when the mfaToken comes back with a right code, then 201 with a session whose access token has amr ["pwd","otp"]; the mfaToken and the code are single use', async () => {
    const enrolled = await anEnrolledUser();
    const { mfaToken } = await firstStep(enrolled.user);

    const second = await api.post('/auth/mfa', { form: { mfaToken, code: await enrolled.app.nextCode() } });

    expect(second.status).toBe(201);
    expectShape(second.body, authResult, 'MFA sign-in result');
    expect(amrOf(second.body.token)).toEqual(['pwd', 'otp']);
    expect((await api.get('/users/me', { bearer: second.body.token })).status).toBe(200);
    // The refreshed session keeps its amr.
    const refreshed = await api.post('/auth/refresh', { form: { refreshToken: second.body.refreshToken } });
    expect(amrOf(refreshed.body.token)).toEqual(['pwd', 'otp']);
    // The same mfaToken again, even with a fresh code: used.
    expectProblem(await api.post('/auth/mfa', { form: { mfaToken, code: await enrolled.app.nextCode() } }), 401, { code: 'invalid_mfa_token' });
  }, 70_000);

  test('when an accepted code is replayed with a new mfaToken, then 401 invalid_mfa_code', async () => {
    const enrolled = await anEnrolledUser();
    const first = await firstStep(enrolled.user);
    const code = await enrolled.app.nextCode();
    expect((await api.post('/auth/mfa', { form: { mfaToken: first.mfaToken, code } })).status).toBe(201);
    const again = await firstStep(enrolled.user);

    const replay = await api.post('/auth/mfa', { form: { mfaToken: again.mfaToken, code } });

    expectProblem(replay, 401, { code: 'invalid_mfa_code' });
    // The confirmation's code is used up too.
    expectProblem(await api.post('/auth/mfa', { form: { mfaToken: again.mfaToken, code: enrolled.app.lastCode() } }), 401, { code: 'invalid_mfa_code' });
  });

  test('when two sign-ins race with the same code, then exactly one gets a session', async () => {
    const enrolled = await anEnrolledUser();
    const [a, b] = [await firstStep(enrolled.user), await firstStep(enrolled.user)];
    const code = await enrolled.app.nextCode();

    const replies = await Promise.all([a, b].map(({ mfaToken }) => api.post('/auth/mfa', { form: { mfaToken, code } })));

    expect(replies.map((r) => r.status).sort()).toEqual([201, 401]);
  });

  test('when a wrong code is sent, then 401 and the mfaToken still works; a forged or unknown mfaToken is 401 invalid_mfa_token', async () => {
    const enrolled = await anEnrolledUser();
    const { mfaToken } = await firstStep(enrolled.user);

    expectProblem(await api.post('/auth/mfa', { form: { mfaToken, code: enrolled.app.wrongCode() } }), 401, { code: 'invalid_mfa_code' });
    expectProblem(await api.post('/auth/mfa', { form: { mfaToken: `${mfaToken}x`, code: await enrolled.app.nextCode() } }), 401, { code: 'invalid_mfa_token' });
    expect((await api.post('/auth/mfa', { json: { mfaToken, code: await enrolled.app.nextCode() } })).status).toBe(201);
  }, 70_000);

  test('when an mfaToken is older than 5 minutes, then 401 invalid_mfa_token', async () => {
    const enrolled = await anEnrolledUser();
    const { mfaToken } = await firstStep(enrolled.user);
    await stack
      .db('identity')
      .collection('mfa_challenges')
      .updateMany({ userId: new ObjectId(enrolled.id) }, { $set: { expiresAt: new Date(Date.now() - 1000) } });

    expectProblem(await api.post('/auth/mfa', { form: { mfaToken, code: await enrolled.app.nextCode() } }), 401, { code: 'invalid_mfa_token' });
  });

  test('when wrong codes follow each other, then the tenth is the last checked: the next answers 429 with Retry-After, and right passwords in between do not reset it', async () => {
    const enrolled = await anEnrolledUser();
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    for (let i = 0; i < 12 && retryAfter === null; i++) {
      const { mfaToken } = await firstStep(enrolled.user);
      const reply = await api.post('/auth/mfa', { form: { mfaToken, code: enrolled.app.wrongCode() } });
      statuses.push(reply.status);
      if (reply.status === 429) retryAfter = reply.headers.get('retry-after');
    }

    expect(statuses).toEqual([...Array(10).fill(401), 429]);
    expect(Number(retryAfter)).toBeGreaterThan(0);
  });

  test('when a recovery code is used, then 201 with amr ["pwd","mfa"], once; the same code again is 401', async () => {
    const enrolled = await anEnrolledUser();
    const recoveryCode = enrolled.recoveryCodes[3]!;
    const first = await firstStep(enrolled.user);

    const used = await api.post('/auth/mfa', { form: { mfaToken: first.mfaToken, recoveryCode: recoveryCode.toUpperCase() } });

    expect(used.status).toBe(201);
    expect(amrOf(used.body.token)).toEqual(['pwd', 'mfa']);
    const again = await firstStep(enrolled.user);
    expectProblem(await api.post('/auth/mfa', { form: { mfaToken: again.mfaToken, recoveryCode } }), 401, { code: 'invalid_mfa_code' });
    expect((await api.post('/auth/mfa', { form: { mfaToken: again.mfaToken, recoveryCode: enrolled.recoveryCodes[4]! } })).status).toBe(201);
  });

  test("when a password reset sets a new password, then MFA stays on (the owner's password was proven): the new password still needs a code", async () => {
    // The password is the owner's once set through a reset link; a reset of a sign-up's unproven
    // password would remove the factor (mfa.attacks.test.ts).
    const { id, user: signedUp } = await aSignedInUser();
    const proven = { ...signedUp, password: `proven-${signedUp.password}` };
    const first = await aStoredResetToken(stack.db('identity'), id);
    expect((await api.request('PUT', `/password-resets/${first}`, { form: { password: proven.password } })).status).toBe(200);
    const { token: session } = (await signIn(api, stack, proven)).body;
    const app = new TestAuthenticator((await api.post('/users/me/mfa/totp', { bearer: session })).body.secret);
    expect((await api.post('/users/me/mfa/totp/confirm', { bearer: session, form: { code: await app.nextCode() } })).status).toBe(200);
    const token = await aStoredResetToken(stack.db('identity'), id);
    const password = `reset-${proven.password}`;

    expect((await api.request('PUT', `/password-resets/${token}`, { form: { password } })).status).toBe(200);

    const { mfaToken } = await firstStep({ ...proven, password });
    expect((await api.post('/auth/mfa', { form: { mfaToken, code: await app.nextCode() } })).status).toBe(201);
  }, 70_000);
});

describe('recovery codes and turning MFA off', () => {
  test('when a session without a second factor asks for new recovery codes, then 401 mfa_required; from an MFA session with a code, 201 and the old codes end', async () => {
    const enrolled = await anEnrolledUser();
    const { mfaToken } = await firstStep(enrolled.user);
    const mfaSession = await api.post('/auth/mfa', { form: { mfaToken, recoveryCode: enrolled.recoveryCodes[0]! } });

    expect(mfaSession.status).toBe(201);
    const refused = await api.post('/users/me/mfa/recovery-codes', { bearer: enrolled.token, form: { code: enrolled.app.wrongCode() } });
    expectProblem(refused, 401, { code: 'mfa_required' });
    expect(refused.headers.get('www-authenticate')).toBe(RFC_9470);
    const renewed = await api.post('/users/me/mfa/recovery-codes', { bearer: mfaSession.body.token, form: { code: await enrolled.app.nextCode() } });

    expect(renewed.status).toBe(201);
    expect(renewed.body.recoveryCodes).toHaveLength(10);
    const next = await firstStep(enrolled.user);
    expectProblem(await api.post('/auth/mfa', { form: { mfaToken: next.mfaToken, recoveryCode: enrolled.recoveryCodes[1]! } }), 401, { code: 'invalid_mfa_code' });
    expect((await api.post('/auth/mfa', { form: { mfaToken: next.mfaToken, recoveryCode: renewed.body.recoveryCodes[0] } })).status).toBe(201);
  }, 70_000);

  test('when the user turns MFA off with the password and a code, then 204 and sign-in needs the password only; a wrong password or code changes nothing', async () => {
    const enrolled = await anEnrolledUser();
    const basic = { user: enrolled.user.email, password: enrolled.user.password };
    const off = (options: { password?: string; form: Record<string, string> }) =>
      api.request('DELETE', '/users/me/mfa', {
        basic: { ...basic, password: options.password ?? basic.password },
        form: { ...options.form, access_token: enrolled.token },
      });

    expectProblem(await off({ password: 'not-the-password', form: { code: enrolled.app.wrongCode() } }), 401, { code: 'invalid_credentials' });
    expectProblem(await off({ form: { code: enrolled.app.wrongCode() } }), 401, { code: 'invalid_mfa_code' });
    await firstStep(enrolled.user);
    const done = await off({ form: { code: await enrolled.app.nextCode() } });

    expect(done.status).toBe(204);
    const plain = await signIn(api, stack, enrolled.user);
    expect(plain.status).toBe(201);
    expect(amrOf(plain.body.token)).toEqual(['pwd']);
    expect((await api.get('/users/me', { bearer: enrolled.token })).body.mfa).toEqual({ totp: false });
    expectProblem(await off({ form: { recoveryCode: enrolled.recoveryCodes[0]! } }), 409, { code: 'mfa_off' });
  }, 70_000);

  test('when an admin turns off the MFA of a user who lost their factor, then 204, every session of the user ends, and the password alone signs in', async () => {
    const enrolled = await anEnrolledUser();
    const admin = await aSignedInUser({ role: 'admin' });
    const other = await aSignedInUser();

    expectProblem(await api.request('DELETE', `/users/${enrolled.id}/mfa`, { bearer: other.token }), 403);
    const done = await api.request('DELETE', `/users/${enrolled.id}/mfa`, { bearer: admin.token });
    const since = Date.now();

    expect(done.status).toBe(204);
    let status = 0;
    while (Date.now() - since < 1_000 && (status = (await api.get('/users/me', { bearer: enrolled.token })).status) !== 401) await new Promise((r) => setTimeout(r, 20));
    expect(status).toBe(401);
    expect((await signIn(api, stack, enrolled.user)).status).toBe(201);
    expectProblem(await api.request('DELETE', `/users/${enrolled.id}/mfa`, { bearer: admin.token }), 409, { code: 'mfa_off' });
    expectProblem(await api.request('DELETE', `/users/${new ObjectId().toHexString()}/mfa`, { bearer: admin.token }), 404);
  });
});

describe('MFA_REQUIRED_ROLES=admin at the gateway', () => {
  let strict: ExtraGateway;
  let strictApi: Client;
  beforeAll(async () => {
    strict = await stack.startGateway({ MFA_REQUIRED_ROLES: 'admin' });
    strictApi = client(strict.url);
  }, 60_000);
  afterAll(async () => {
    await strict?.stop();
  });

  test('when an admin signed in with the password only calls an admin route, then 401 mfa_required (RFC 9470); signed in with a code, 200', async () => {
    const admin = await anEnrolledUser({ role: 'admin' });
    const passwordOnly = admin.token;

    const refused = await strictApi.get('/users', { bearer: passwordOnly });
    expectProblem(refused, 401, { code: 'mfa_required' });
    expect(refused.headers.get('www-authenticate')).toBe(RFC_9470);
    // Not an admin-level route: enrolment and the rest stay reachable.
    expect((await strictApi.get('/users/me', { bearer: passwordOnly })).status).toBe(200);
    // The default gateway has no such rule.
    expect((await api.get('/users', { bearer: passwordOnly })).status).toBe(200);

    const { mfaToken } = await firstStep(admin.user);
    const withCode = await strictApi.post('/auth/mfa', { form: { mfaToken, code: await admin.app.nextCode() } });
    expect(withCode.status).toBe(201);
    expect((await strictApi.get('/users', { bearer: withCode.body.token })).status).toBe(200);
  }, 70_000);
});
