import { createHash } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { ObjectId } from 'mongodb';
import { aUser, anArticle, signUp, type UserInput } from '../support/actors';
import { TestAuthenticator } from '../support/authenticator';
import { client, type Client, type Reply } from '../support/http';
import { outboxMails, recipientOf } from '../support/outbox';
import { aStoredResetToken } from '../support/records';
import { expectProblem } from '../support/shapes';
import { startTestStack, type TestStack } from '../support/stack';

/**
 * Attacks on the second factor and on admin rights, replayed through the gateway as an attacker
 * would make them: many client addresses (believed from loopback, `TRUSTED_PROXIES=loopback`), a
 * password already known, a stolen access token, an admin token without a second factor
 * (`MFA_REQUIRED_ROLES=admin`). Each test fails on a stack without the rule it names.
 */
let stack: TestStack;
let api: Client;

beforeAll(async () => {
  // The gateway's per-address ceilings are not what this file tests (every address here is new anyway).
  stack = await startTestStack({
    env: {
      TRUSTED_PROXIES: 'loopback',
      MFA_REQUIRED_ROLES: 'admin',
      RATE_LIMIT_ALL: '100000/60',
      RATE_LIMIT_CREDENTIALS: '100000/60',
      RATE_LIMIT_SIGN_UP: '100000/60',
    },
  });
  api = client(stack.url);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

let addressCount = 0;
/** A client address of its own: TEST-NET IPv4, or an IPv6 documentation /64 of its own. */
const anAddress = () => {
  addressCount += 1;
  return addressCount % 2 ? `198.51.100.${(addressCount % 250) + 1}` : `2001:db8:${addressCount.toString(16)}::1`;
};
const from = (address: string) => ({ 'x-forwarded-for': address });

function signInFrom(address: string, user: UserInput): Promise<Reply> {
  return api.post('/auth', {
    basic: { user: user.email, password: user.password },
    form: { access_token: stack.secrets.MASTER_KEY },
    headers: from(address),
  });
}

interface Enrolled {
  id: string;
  user: UserInput;
  token: string;
  app: TestAuthenticator;
  recoveryCodes: string[];
}

async function aSignedInUser(extra: Record<string, string> = {}): Promise<{ id: string; user: UserInput; token: string }> {
  const user = aUser();
  const created = await signUp(api, stack, user, extra);
  if (created.status !== 201) throw new Error(`sign-up failed: ${created.status} ${created.text}`);
  const auth = await signInFrom(anAddress(), user);
  if (auth.status !== 201) throw new Error(`sign-in failed: ${auth.status} ${auth.text}`);
  return { id: created.body.id, user, token: auth.body.token };
}

async function enrol(token: string): Promise<{ app: TestAuthenticator; recoveryCodes: string[] }> {
  const enrolment = await api.post('/users/me/mfa/totp', { bearer: token });
  if (enrolment.status !== 201) throw new Error(`enrolment failed: ${enrolment.status} ${enrolment.text}`);
  const app = new TestAuthenticator(enrolment.body.secret);
  const confirmed = await api.post('/users/me/mfa/totp/confirm', { bearer: token, form: { code: await app.nextCode() } });
  if (confirmed.status !== 200) throw new Error(`confirmation failed: ${confirmed.status} ${confirmed.text}`);
  return { app, recoveryCodes: confirmed.body.recoveryCodes };
}

async function anEnrolledUser(extra: Record<string, string> = {}): Promise<Enrolled> {
  const signedIn = await aSignedInUser(extra);
  return { ...signedIn, ...(await enrol(signedIn.token)) };
}

/**
 * A user whose password is proven (set through a reset link, as an owner does), then enrolled: a
 * later reset keeps the factor, which a reset of a sign-up's unproven password would remove.
 */
async function aProvenEnrolledUser(): Promise<Enrolled> {
  const { id, user: signedUp } = await aSignedInUser();
  const user = { ...signedUp, password: `pw-proven-${id}` };
  const reset = await api.request('PUT', `/password-resets/${await aStoredResetToken(stack.db('identity'), id)}`, {
    form: { password: user.password },
  });
  if (reset.status !== 200) throw new Error(`reset failed: ${reset.status} ${reset.text}`);
  const auth = await signInFrom(anAddress(), user);
  if (auth.status !== 201) throw new Error(`sign-in failed: ${auth.status} ${auth.text}`);
  return { id, user, token: auth.body.token, ...(await enrol(auth.body.token)) };
}

/** The first step of a sign-in with MFA on: its mfaToken. */
async function mfaTokenOf(user: UserInput, address = anAddress()): Promise<string> {
  const reply = await signInFrom(address, user);
  expectProblem(reply, 401, { code: 'mfa_required' });
  return reply.body.mfaToken;
}

const secondStep = (mfaToken: string, proof: Record<string, string>, address = anAddress()) =>
  api.post('/auth/mfa', { form: { mfaToken, ...proof }, headers: from(address) });

/** A session with a second factor, opened with one of the user's recovery codes (no wait for a time step). */
async function withSecondFactor(enrolled: Enrolled): Promise<string> {
  const reply = await secondStep(await mfaTokenOf(enrolled.user), { recoveryCode: enrolled.recoveryCodes.pop()! });
  if (reply.status !== 201) throw new Error(`second step failed: ${reply.status} ${reply.text}`);
  return reply.body.token;
}

/** The mails to `email` whose subject is `subject`, once there are `count` (throws after 20 s). */
async function mailsTo(email: string, subject: string, count = 1): Promise<Array<{ text: string; to: string }>> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const mails = (await outboxMails(stack.outboxDir)).filter((mail) => recipientOf(mail) === email && mail.subject === subject);
    if (mails.length >= count)
      return mails.map((mail) => ({ text: mail.text ?? '', to: (Array.isArray(mail.to) ? mail.to[0] : mail.to)!.text }));
    if (Date.now() > deadline) throw new Error(`no mail "${subject}" to ${email} within 20 s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const challengeOf = (mfaToken: string) =>
  stack
    .db('identity')
    .collection('mfa_challenges')
    .findOne({ _id: createHash('sha256').update(mfaToken).digest('hex') as unknown as ObjectId });

describe('guessing one-time codes', () => {
  test('when wrong codes come on one mfaToken, each from a new address, then 5 are checked and the token is used up: a right code after them is refused', async () => {
    const enrolled = await anEnrolledUser();
    const mfaToken = await mfaTokenOf(enrolled.user);

    const codes: string[] = [];
    for (let i = 0; i < 8; i++) codes.push((await secondStep(mfaToken, { code: enrolled.app.wrongCode() })).body.code);
    const right = await secondStep(mfaToken, { code: await enrolled.app.nextCode() });

    expect(codes).toEqual([...Array(5).fill('invalid_mfa_code'), ...Array(3).fill('invalid_mfa_token')]);
    expectProblem(right, 401, { code: 'invalid_mfa_token' });
    expect(await challengeOf(mfaToken)).toBeNull();
  }, 90_000);

  test('when wrong codes come from 300 addresses (IPv4 and IPv6), then 10 are checked for the account, pending sign-ins end, the owner is mailed once, and checks wait until a password reset', async () => {
    const enrolled = await aProvenEnrolledUser();
    const pending = await mfaTokenOf(enrolled.user);

    const outcomes: string[] = [];
    let mfaToken: string | null = null;
    for (let i = 0; i < 300; i++) {
      const address = anAddress();
      mfaToken ??= await mfaTokenOf(enrolled.user, address);
      const reply = await secondStep(mfaToken, { code: enrolled.app.wrongCode() }, address);
      outcomes.push(reply.status === 429 ? 'waits' : reply.body.code);
      if (reply.body.code === 'invalid_mfa_token') mfaToken = null;
    }
    const whileLocked = await secondStep(await mfaTokenOf(enrolled.user), { code: await enrolled.app.nextCode() });

    expect(outcomes.filter((outcome) => outcome === 'invalid_mfa_code')).toHaveLength(10);
    expect(outcomes.slice(-200)).toEqual(Array(200).fill('waits'));
    expectProblem(whileLocked, 429, { code: 'rate_limited' });
    expect(Number(whileLocked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await challengeOf(pending)).toBeNull();
    const [notice] = await mailsTo(enrolled.user.email, 'Many wrong sign-in codes for your account');
    expect(notice!.text).toMatch(/knows your password/);

    // The owner resets the password (the link proves the address): the wait ends, and the right code signs in.
    const newPassword = `pw-reset-${enrolled.id}`;
    const token = await aStoredResetToken(stack.db('identity'), enrolled.id);
    expect((await api.request('PUT', `/password-resets/${token}`, { form: { password: newPassword } })).status).toBe(200);
    const after = await secondStep(await mfaTokenOf({ ...enrolled.user, password: newPassword }), { code: await enrolled.app.nextCode() });

    expect(after.status).toBe(201);
    expect(await mailsTo(enrolled.user.email, 'Many wrong sign-in codes for your account')).toHaveLength(1);
  }, 120_000);

  test('when wrong passwords come from many addresses of one IPv6 /64, then they count as one address: past the free failures the next waits', async () => {
    const owner = aUser();
    expect((await signUp(api, stack, owner)).status).toBe(201);
    const guess = (address: string, i: number) => signInFrom(address, { ...owner, password: `guess-${i}` });

    // The back-off checks the 5 free failures and one more, then makes the next wait.
    const sameNet = [];
    for (let i = 0; i < 7; i++) sameNet.push((await guess(`2001:db8:ffff:1:${i}::7`, i)).status);
    const otherNet = await guess('2001:db8:ffff:2::7', 99);

    expect(sameNet).toEqual([401, 401, 401, 401, 401, 401, 429]);
    expect(otherNet.status).toBe(401);
  });
});

describe('a sign-in waiting for its second factor', () => {
  test.each([
    [
      'the password is changed',
      async (e: Enrolled) =>
        api.request('PUT', '/users/me/password', {
          basic: { user: e.user.email, password: e.user.password },
          form: { password: `pw-changed-${e.id}`, access_token: e.token },
        }),
    ],
    [
      'the password is reset',
      async (e: Enrolled) =>
        api.request('PUT', `/password-resets/${await aStoredResetToken(stack.db('identity'), e.id)}`, {
          form: { password: `pw-reset-${e.id}` },
        }),
    ],
    ['all sessions are ended', async (e: Enrolled) => api.request('DELETE', '/users/me/sessions', { bearer: e.token })],
  ])(
    'when %s meanwhile, then the right code opens no session with the old password',
    async (_label, change) => {
      const enrolled = await anEnrolledUser();
      const mfaToken = await mfaTokenOf(enrolled.user);

      const changed = await change(enrolled);
      const reply = await secondStep(mfaToken, { code: await enrolled.app.nextCode() });

      expect(changed.status).toBeLessThan(300);
      expectProblem(reply, 401, { code: 'invalid_mfa_token' });
      expect(reply.body.token).toBeUndefined();
    },
    90_000,
  );
});

describe('adding or removing a second factor', () => {
  test('when an access token from a session older than 10 minutes starts an enrolment alone, then 401 reauthentication_required; with the current password in the body, 201', async () => {
    const { user, token } = await aSignedInUser();
    const { sid } = jwt.decode(token) as { sid: string };
    await stack
      .db('identity')
      .collection('sessions')
      .updateOne({ _id: new ObjectId(sid) }, { $set: { createdAt: new Date(Date.now() - 11 * 60_000) } });

    const alone = await api.post('/users/me/mfa/totp', { bearer: token });
    const wrongPassword = await api.post('/users/me/mfa/totp', { bearer: token, form: { password: 'not-the-password' } });
    const withPassword = await api.post('/users/me/mfa/totp', { bearer: token, form: { password: user.password } });

    expectProblem(alone, 401, { code: 'reauthentication_required' });
    expectProblem(wrongPassword, 401, { code: 'invalid_credentials' });
    expect(withPassword.status).toBe(201);
    expect((await api.get('/users/me', { bearer: token })).body.mfa).toEqual({ totp: false });
  });

  test('when MFA is turned on, recovery codes are renewed and MFA is turned off, then the address gets a mail for each', async () => {
    const enrolled = await anEnrolledUser();
    const strong = await withSecondFactor(enrolled);

    const renewed = await api.post('/users/me/mfa/recovery-codes', { bearer: strong, form: { code: await enrolled.app.nextCode() } });
    const off = await api.request('DELETE', '/users/me/mfa', {
      basic: { user: enrolled.user.email, password: enrolled.user.password },
      form: { access_token: strong, recoveryCode: renewed.body.recoveryCodes[0] },
    });

    expect(renewed.status).toBe(201);
    expect(off.status).toBe(204);
    for (const subject of ['Multi-factor sign-in was turned on', 'New recovery codes were made', 'Multi-factor sign-in was turned off']) {
      const [mail] = await mailsTo(enrolled.user.email, subject);
      expect(mail!.to).toBe(enrolled.user.email);
    }
  }, 90_000);

  test("when an admin turns off their own MFA through the admin route, then 403 own_mfa_by_admin; another user's, 204 and that user is mailed", async () => {
    const admin = await anEnrolledUser({ role: 'admin' });
    const victim = await anEnrolledUser();
    const strong = await withSecondFactor(admin);

    const own = await api.request('DELETE', `/users/${admin.id}/mfa`, { bearer: strong });
    const other = await api.request('DELETE', `/users/${victim.id}/mfa`, { bearer: strong });

    expectProblem(own, 403, { code: 'own_mfa_by_admin' });
    expectProblem(await signInFrom(anAddress(), admin.user), 401, { code: 'mfa_required' });
    expect(other.status).toBe(204);
    await mailsTo(victim.user.email, 'An administrator turned off multi-factor sign-in');
  }, 90_000);

  test("when someone signs up with another person's address and turns MFA on, then the owner's password reset removes that factor", async () => {
    const squatter = await anEnrolledUser();

    const newPassword = `pw-owner-${squatter.id}`;
    const token = await aStoredResetToken(stack.db('identity'), squatter.id);
    expect((await api.request('PUT', `/password-resets/${token}`, { form: { password: newPassword } })).status).toBe(200);
    const owner = await signInFrom(anAddress(), { ...squatter.user, password: newPassword });

    expect(owner.status).toBe(201);
    expect((await api.get('/users/me', { bearer: owner.body.token })).body.mfa).toEqual({ totp: false });
  }, 60_000);
});

describe('MFA_REQUIRED_ROLES=admin where admin rights override ownership', () => {
  test('when an admin token without a second factor acts on another user or their records, then 401 mfa_required and nothing changes; with one, it works', async () => {
    const admin = await anEnrolledUser({ role: 'admin' });
    // The session from before enrolment: the admin's password alone, no second factor.
    const weak = admin.token;
    const author = await aSignedInUser();
    const article = await api.post('/articles', { bearer: author.token, json: anArticle() });

    const refusals = [
      await api.request('PATCH', `/users/${author.id}`, { bearer: weak, json: { name: 'Renamed by an admin' } }),
      await api.request('DELETE', `/users/${author.id}/sessions`, { bearer: weak }),
      await api.request('PATCH', `/articles/${article.body.id}`, { bearer: weak, json: { title: 'Edited by an admin' } }),
      await api.request('DELETE', `/articles/${article.body.id}`, { bearer: weak }),
    ];
    const ownProfile = await api.request('PATCH', '/users/me', { bearer: weak, json: { name: 'Admin' } });

    for (const refused of refusals) expectProblem(refused, 401, { code: 'mfa_required' });
    expect(ownProfile.status).toBe(200);
    expect((await api.get(`/users/${author.id}`)).body.name).not.toBe('Renamed by an admin');
    expect((await api.get('/users/me', { bearer: author.token })).status).toBe(200);
    expect((await api.get(`/articles/${article.body.id}`)).body.title).toBe(article.body.title);

    const strong = await withSecondFactor(admin);
    expect((await api.request('PATCH', `/users/${author.id}`, { bearer: strong, json: { name: 'Renamed by an admin' } })).status).toBe(200);
    expect((await api.request('DELETE', `/articles/${article.body.id}`, { bearer: strong })).status).toBe(204);
  }, 90_000);
});

describe('mails to an address nobody has proven yet', () => {
  test('when someone signs up an address with a name that is a message, then the verification mail greets neutrally, with the bare address in To:', async () => {
    const user = aUser();
    const name = 'Your account is locked call 555 0100';
    expect((await signUp(api, stack, user, { name })).status).toBe(201);

    const [mail] = await mailsTo(user.email, 'Confirm your e-mail address');

    expect(mail!.text).toMatch(/^Hello,\n/);
    expect(mail!.text).not.toContain('locked');
    expect(mail!.to).toBe(user.email);
  });
});
