import { randomEmail } from '@restgate/shared/testing';
import { EMAIL_VERIFICATIONS_COLLECTION } from '../src/emailed-links/link-token.repository';
import { aGitHubAccount } from './support/fake-providers';
import { basic, expectProblem, MASTER, startIdentityWithGitHub } from './support/identity-harness';
import { mailRowsTo } from './support/password-resets';

/** `ada@example.test` → `ａｄａ＠ｅｘａｍｐｌｅ．ｔｅｓｔ`: ASCII characters as their full-width look-alikes (NFKC folds them back). */
function fullWidth(text: string, which = /[!-~]/): string {
  return [...text].map((ch) => (which.test(ch) ? String.fromCodePoint(ch.codePointAt(0)! + 0xfee0) : ch)).join('');
}

/** Only the letters and digits: `ａｄａ@ｅｘａｍｐｌｅ.ｔｅｓｔ`, which a mail client shows like the original. */
const fullWidthLetters = (text: string) => fullWidth(text, /[A-Za-z0-9]/);

/**
 * Unicode look-alikes of an address (full-width letters, the full-width `＠`) are the same address:
 * every route that takes an e-mail normalises it (NFKC, then trimmed and lower-cased), so they
 * reach the one account instead of making a second, look-alike one.
 */
describe('e-mail look-alikes (NFKC)', () => {
  let h: Awaited<ReturnType<typeof startIdentityWithGitHub>>;
  beforeAll(async () => {
    h = await startIdentityWithGitHub();
  });
  afterAll(() => h.close());

  const signUp = (email: string) => h.call('post', '/users', MASTER).type('form').send({ email, password: 'correct-horse' });

  test('when someone signs up with the full-width look-alike of a registered e-mail, then 409: no look-alike account', async () => {
    const user = await h.aUser();

    const letters = await signUp(fullWidthLetters(user.email.toUpperCase()));
    const everything = await signUp(fullWidth(user.email));

    expectProblem(letters, 409, 'email');
    expectProblem(everything, 409, 'email');
    const lookalikes = [fullWidthLetters(user.email), fullWidthLetters(user.email.toUpperCase()).toLowerCase(), fullWidth(user.email)];
    expect(await h.db.collection('users').countDocuments({ email: { $in: lookalikes } })).toBe(0);
  });

  test('when someone signs up with a full-width e-mail, then the account is stored under the plain address', async () => {
    const email = randomEmail('wide');

    const res = await signUp(fullWidth(email));

    expect(res.status).toBe(201);
    expect(res.body.email).toBe(email);
    expect(await h.userDoc(res.body.id)).toMatchObject({ email });
  });

  test('when the owner signs in with HTTP Basic written in full-width letters, then it is their account', async () => {
    const user = await h.aUser();

    const res = await h.call('post', '/auth', MASTER).set('Authorization', basic(fullWidthLetters(user.email), user.password));

    expect(res.status).toBe(201);
    expect(res.body.user.id).toBe(user.id);
  });

  test('when a reset or a new verification link is asked for the full-width address, then the mail goes to the account', async () => {
    const user = await h.aUser();
    const verificationMail = async () =>
      (await h.db.collection(EMAIL_VERIFICATIONS_COLLECTION).findOne({ address: user.email }))?.mail?.envelope;
    const signUpMail = await verificationMail();

    const reset = await h
      .call('post', '/password-resets', MASTER)
      .type('form')
      .send({ email: fullWidthLetters(user.email) });
    const verify = await h
      .call('post', '/email-verifications', MASTER)
      .type('form')
      .send({ email: fullWidth(user.email) });

    expect([reset.status, verify.status]).toEqual([202, 202]);
    expect(await mailRowsTo(h, user.email)).toHaveLength(1);
    const newMail = await verificationMail();
    expect(newMail).toMatchObject({ data: { to: user.email } });
    expect(newMail.id).not.toBe(signUpMail.id);
  });

  test('when GitHub vouches for a full-width e-mail, then the new account has the plain address, and a sign-up with it is 409', async () => {
    const email = randomEmail('github');
    const account = aGitHubAccount({ emails: [{ email: fullWidth(email), primary: true, verified: true }] });

    const social = await h.call('post', '/auth/github').set('Authorization', `Bearer ${h.github.issueToken(account)}`);
    const again = await signUp(email);

    expect(social.status).toBe(201);
    expect(social.body.user.email).toBe(email);
    expectProblem(again, 409, 'email');
  });
});
