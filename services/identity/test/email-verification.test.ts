import { randomEmail } from '@restgate/shared/testing';
import { ObjectId } from 'mongodb';
import { EMAIL_VERIFICATIONS_COLLECTION, type LinkTokenDocument } from '../src/emailed-links/link-token.repository';
import { hashLinkToken } from '../src/emailed-links/emailed-link';
import { basic, MASTER, type IdentityHarness } from './support/identity-harness';
import { eventually, linkIn, pause, startMailPipeline, type MailPipeline } from './support/password-resets';

/**
 * E-mail verification end to end inside identity: sign-up → outbox → relay → RabbitMQ → the real
 * mailer → a real SMTP server; the link read from the mail proves the address.
 */
describe('e-mail verification', () => {
  let pipeline: MailPipeline;
  let h: IdentityHarness;
  let strict: IdentityHarness;
  let raced: IdentityHarness;
  beforeAll(async () => {
    pipeline = await startMailPipeline();
    h = await pipeline.identity({ RESET_MAILS_PER_EMAIL: '2/3600' }, { abuse: true, verifications: true });
    strict = await pipeline.identity({ REQUIRE_VERIFIED_EMAIL: 'true' }, { verifications: true });
    raced = await pipeline.identity({ RESET_MAILS_PER_EMAIL: '3/3600' }, { abuse: true, verifications: true });
  });
  afterAll(() => pipeline.stop());

  const rows = (on: IdentityHarness, userId: string) =>
    on.db
      .collection<LinkTokenDocument>(EMAIL_VERIFICATIONS_COLLECTION)
      .find({ userId: new ObjectId(userId) })
      .toArray();
  const signUp = (on: IdentityHarness, email: string, password = 'correct-horse') =>
    on.call('post', '/users', MASTER).send({ email, password });
  const askAgainOn = (on: IdentityHarness, email: string) => on.call('post', '/email-verifications', MASTER).type('form').send({ email });
  const askAgain = (email: string) => askAgainOn(h, email);
  const verificationMails = (email: string) => pipeline.mailsTo(email).filter((m) => m.subject === 'Confirm your e-mail address');

  test('when a user signs up, then exactly one verification mail arrives, and its link verifies the address once', async () => {
    const email = randomEmail();

    const created = await signUp(h, email);
    const [mail] = await pipeline.waitForMailsTo(email);
    const { link, token } = linkIn(mail!);
    const look = await h.call('get', `/email-verifications/${token}`);
    const verified = await h.call('put', `/email-verifications/${token}`);
    const again = await h.call('put', `/email-verifications/${token}`);
    await pause(1_000);

    expect(created.status).toBe(201);
    expect(created.body.emailVerified).toBe(false);
    expect(mail!.subject).toBe('Confirm your e-mail address');
    expect(link).toBe(`http://127.0.0.1:9000/email-verifications/${token}`);
    expect(look.status).toBe(200);
    expect(look.body).toEqual({ user: { id: created.body.id, name: created.body.name, picture: created.body.picture, email } });
    expect(verified.status).toBe(200);
    expect(verified.body).toEqual({ ...created.body, emailVerified: true });
    expect(again.status).toBe(404);
    expect(again.body.code).toBe('email_verification_not_found');
    expect((await h.userDoc(created.body.id))?.emailVerified).toBe(true);
    expect(await rows(h, created.body.id)).toEqual([]);
    expect(pipeline.mailsTo(email)).toHaveLength(1);
  });

  test('when 10 verifications of one token race, then exactly one succeeds', async () => {
    const email = randomEmail();
    await signUp(h, email);
    const { token } = linkIn((await pipeline.waitForMailsTo(email))[0]!);

    const replies = await Promise.all(Array.from({ length: 10 }, () => h.call('put', `/email-verifications/${token}`)));

    expect(replies.map((r) => r.status).sort()).toEqual([200, ...Array(9).fill(404)]);
  });

  test('when the token has expired, then GET and PUT answer 404 and the address stays unverified', async () => {
    const email = randomEmail();
    const created = await signUp(h, email);
    const { token } = linkIn((await pipeline.waitForMailsTo(email))[0]!);
    await h.db
      .collection<LinkTokenDocument>(EMAIL_VERIFICATIONS_COLLECTION)
      .updateOne({ tokenHash: hashLinkToken(token) }, { $set: { expiresAt: new Date(Date.now() - 1_000) } });

    const look = await h.call('get', `/email-verifications/${token}`).set('Accept', 'text/html');
    const verify = await h.call('put', `/email-verifications/${token}`);

    expect(look.status).toBe(404);
    expect(look.text).toContain('This link no longer works');
    expect(verify.status).toBe(404);
    expect((await h.userDoc(created.body.id))?.emailVerified).toBe(false);
  });

  test('when a new link is asked five times, then each answer is the same 202, two more mails go out, and only the latest link works', async () => {
    const email = randomEmail();
    const created = await signUp(h, email);
    await pipeline.waitForMailsTo(email, 1);

    const replies = [];
    for (let i = 0; i < 5; i += 1) {
      replies.push(await askAgain(email));
      if (i < 2) await pipeline.waitForMailsTo(email, i + 2);
    }
    await pause(1_500);

    expect(replies.map((r) => r.status)).toEqual([202, 202, 202, 202, 202]);
    expect(new Set(replies.map((r) => JSON.stringify(r.body))).size).toBe(1);
    const mails = verificationMails(email);
    expect(mails).toHaveLength(3);
    expect(await rows(h, created.body.id)).toHaveLength(1);
    expect((await h.call('put', `/email-verifications/${linkIn(mails[1]!).token}`)).status).toBe(404);
    expect((await h.call('put', `/email-verifications/${linkIn(mails[2]!).token}`)).status).toBe(200);
  });

  test('when 20 requests for a new link race, then one link is left, and exactly one of the mailed links works', async () => {
    const email = randomEmail();
    const created = await signUp(raced, email);
    await pipeline.waitForMailsTo(email, 1);

    const replies = await Promise.all(Array.from({ length: 20 }, () => askAgainOn(raced, email)));
    await eventually(async () => (await rows(raced, created.body.id)).every((row) => row.mail?.status === 'sent'), {
      what: 'the mails of the links left',
    });
    await pause(1_000);

    expect(replies.map((r) => r.status)).toEqual(Array(20).fill(202));
    expect(await rows(raced, created.body.id)).toHaveLength(1);
    const looks = await Promise.all(
      verificationMails(email).map((mail) => raced.call('get', `/email-verifications/${linkIn(mail).token}`)),
    );
    expect(looks.map((r) => r.status).filter((status) => status === 200)).toHaveLength(1);
  });

  test('when a new link is asked for an unknown or an already verified address, then the answer is the same 202 and no mail goes', async () => {
    const verifiedEmail = randomEmail();
    await signUp(h, verifiedEmail);
    const { token } = linkIn((await pipeline.waitForMailsTo(verifiedEmail))[0]!);
    await h.call('put', `/email-verifications/${token}`).expect(200);
    const unknownEmail = randomEmail();
    const pendingEmail = randomEmail();
    await signUp(h, pendingEmail);
    await pipeline.waitForMailsTo(pendingEmail);

    const forUnknown = await askAgain(unknownEmail);
    const forVerified = await askAgain(verifiedEmail);
    const forPending = await askAgain(pendingEmail);
    await pipeline.waitForMailsTo(pendingEmail, 2);
    await pause(1_000);

    expect([forUnknown.status, forVerified.status, forPending.status]).toEqual([202, 202, 202]);
    expect(forUnknown.body).toEqual(forPending.body);
    expect(forVerified.body).toEqual(forPending.body);
    expect(pipeline.mailsTo(unknownEmail)).toHaveLength(0);
    expect(pipeline.mailsTo(verifiedEmail)).toHaveLength(1);
  });

  test('when REQUIRE_VERIFIED_EMAIL is on, then an unverified user is refused sign-in with email_unverified until the link is used', async () => {
    const email = randomEmail();
    await signUp(strict, email, 'correct-horse');

    const before = await strict.call('post', '/auth', MASTER).set('Authorization', basic(email, 'correct-horse'));
    const wrongPassword = await strict.call('post', '/auth', MASTER).set('Authorization', basic(email, 'wrong-horse'));
    const { token } = linkIn((await pipeline.waitForMailsTo(email))[0]!);
    await strict.call('put', `/email-verifications/${token}`).expect(200);
    const after = await strict.call('post', '/auth', MASTER).set('Authorization', basic(email, 'correct-horse'));

    expect(before.status).toBe(403);
    expect(before.body).toMatchObject({ status: 403, code: 'email_unverified' });
    expect(before.body.detail).toContain('POST /email-verifications');
    expect(before.body.token).toBeUndefined();
    // A wrong password learns nothing about verification.
    expect(wrongPassword.status).toBe(401);
    expect(after.status).toBe(201);
    expect(after.body.user.emailVerified).toBe(true);
  });

  test('when REQUIRE_VERIFIED_EMAIL is off (the default), then an unverified user signs in at once', async () => {
    const email = randomEmail();
    await signUp(h, email, 'correct-horse');

    const signedIn = await h.call('post', '/auth', MASTER).set('Authorization', basic(email, 'correct-horse'));

    expect(signedIn.status).toBe(201);
    expect(signedIn.body.user.emailVerified).toBe(false);
  });

  test('when a browser opens the link, then it gets the page with a button (CSP as the reset page), and the button verifies', async () => {
    const email = randomEmail();
    const created = await signUp(h, email);
    const { token } = linkIn((await pipeline.waitForMailsTo(email))[0]!);

    const page = await h.call('get', `/email-verifications/${token}`).set('Accept', 'text/html');
    const stillUnverified = (await h.userDoc(created.body.id))?.emailVerified;
    const done = await h.call('post', `/email-verifications/${token}`).type('form').send({});

    expect(page.status).toBe(200);
    expect(page.headers['content-security-policy']).toContain("default-src 'none'");
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.text).toContain('<form method="post"');
    // Whoever opens it learns that an account exists with their address, since when, and what to
    // do if it isn't theirs: confirming proves the address, not who chose the password.
    expect(page.text).toContain(`An account was created with this address on ${created.body.createdAt.slice(0, 10)}`);
    expect(page.text).toMatch(/If you did not create it, do not confirm/);
    expect(page.text).toMatch(/reset the password/i);
    expect(stillUnverified).toBe(false);
    expect(done.status).toBe(200);
    expect(done.text).toContain('Your e-mail address is confirmed');
    expect((await h.userDoc(created.body.id))?.emailVerified).toBe(true);
  });
});
