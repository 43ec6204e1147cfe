import { MESSAGE_HEADERS } from '@restgate/shared/messaging';
import { randomEmail, uniqueSuffix } from '@restgate/shared/testing';
import { basic, MASTER, type IdentityHarness } from './support/identity-harness';
import {
  eventually,
  linkIn,
  mailRowsTo,
  pause,
  recipientOf,
  resetsOf,
  startMailPipeline,
  type MailPipeline,
} from './support/password-resets';

jest.setTimeout(30_000);

/**
 * A reset from the HTTP request to the SMTP server: identity (outbox + relay) → RabbitMQ → the
 * real mailer (in-process) → a real SMTP server. What the mailer does when it dies before acking,
 * or when the SMTP server is down, is tested in services/mailer/test (mail.crash.test.ts,
 * mail.retry.test.ts); a broker outage on identity's side is password-reset.outage.test.ts.
 */
describe('password reset by e-mail', () => {
  let pipeline: MailPipeline;
  let h: IdentityHarness;
  beforeAll(async () => {
    pipeline = await startMailPipeline();
    h = await pipeline.identity({ RESET_LINK_ORIGINS: 'https://app.example.test' });
  });
  afterAll(() => pipeline?.stop());

  const requestReset = (body: Record<string, string>, requestId = `req-${uniqueSuffix()}`) =>
    h.call('post', '/password-resets', MASTER).set('X-Request-Id', requestId).type('form').send(body);
  const signIn = (email: string, password: string) => h.call('post', '/auth', MASTER).set('Authorization', basic(email, password));

  test('when a registered user asks, then one mail reaches the SMTP server with a link whose token works once, and only the new password signs in', async () => {
    // Arrange
    const user = await h.aUser({ name: 'Ada Lovelace' });

    // Act
    const res = await requestReset({ email: user.email }, 'req-happy-path');
    const [mail] = await pipeline.waitForMailsTo(user.email);
    const { link, token } = linkIn(mail!);
    const look = await h.call('get', `/password-resets/${token}`);
    const change = await h.call('put', `/password-resets/${token}`).type('form').send({ password: 'the-new-password' });
    const again = await h.call('put', `/password-resets/${token}`).type('form').send({ password: 'yet-another-password' });

    // Assert
    expect(res.status).toBe(202);
    expect(recipientOf(mail!)).toBe(user.email);
    expect(mail!.subject).toBe('Reset your password');
    // The address was never proven: the name chosen at sign-up is not put in the mail.
    expect(mail!.text).toMatch(/^Hello,\n/);
    expect(mail!.text).not.toContain('Ada Lovelace');
    expect(link).toBe(`http://127.0.0.1:9000/password-resets/${token}`);
    expect(mail!.html).toContain(`href="${link}"`);
    expect(look.status).toBe(200);
    expect(look.body.user).toEqual({ id: user.id, name: 'Ada Lovelace', picture: expect.any(String), email: user.email });
    expect(change.status).toBe(200);
    expect(change.body).toMatchObject({ id: user.id, email: user.email, emailVerified: true });
    expect(again.status).toBe(404);
    expect((await signIn(user.email, 'the-new-password')).status).toBe(201);
    expect((await signIn(user.email, user.password)).status).toBe(401);
    // One mail, and the mailer recorded it under the request's id.
    await pause(300);
    expect(pipeline.mailsTo(user.email)).toHaveLength(1);
    const delivery = await pipeline.mail.deliveries.findOne({ requestId: 'req-happy-path' });
    expect(delivery).toMatchObject({ status: 'sent', sends: 1 });
  });

  test('when the outbox row has gone out, then it is marked sent after the confirm', async () => {
    const user = await h.aUser();

    await requestReset({ email: user.email });
    await pipeline.waitForMailsTo(user.email);

    const [row] = await eventually(
      async () => {
        const rows = await resetsOf(h, user.id);
        return rows[0]?.mail?.status === 'sent' ? rows : undefined;
      },
      { what: 'the row to be marked sent' },
    );
    expect(row!.mail).toMatchObject({ status: 'sent', attempts: 1, sentAt: expect.any(Date) });
  });

  test('when the e-mail is unknown, then the same answer, and no mail (while a registered one asked at the same time gets hers)', async () => {
    const user = await h.aUser();
    const unknown = randomEmail('nobody');

    const stranger = await requestReset({ email: unknown });
    const known = await requestReset({ email: user.email });

    expect(stranger.status).toBe(202);
    expect(stranger.body).toEqual(known.body);
    await pipeline.waitForMailsTo(user.email);
    await pause(500);
    expect(pipeline.mailsTo(unknown)).toEqual([]);
    expect(await mailRowsTo(h, unknown)).toEqual([]);
  });

  test('when the link is on an allowed origin, then the mail links there; when not, to the default page', async () => {
    const allowed = await h.aUser();
    const refused = await h.aUser();

    await requestReset({ email: allowed.email, link: 'https://app.example.test/reset' });
    await requestReset({ email: refused.email, link: 'https://phish.example.net/reset' });

    const [good] = await pipeline.waitForMailsTo(allowed.email);
    const [fallback] = await pipeline.waitForMailsTo(refused.email);
    expect(linkIn(good!).link).toMatch(/^https:\/\/app\.example\.test\/reset\/[A-Za-z0-9_-]{43}$/);
    expect(linkIn(fallback!).link).toMatch(/^http:\/\/127\.0\.0\.1:9000\/password-resets\/[A-Za-z0-9_-]{43}$/);
    expect(fallback!.text).not.toContain('phish.example.net');
  });

  test('when a user asks twice and uses the second link, then the first link is dead too', async () => {
    const user = await h.aUser();

    await requestReset({ email: user.email });
    await pipeline.waitForMailsTo(user.email, 1);
    await requestReset({ email: user.email });
    const mails = await pipeline.waitForMailsTo(user.email, 2);
    const [first, second] = mails.map((m) => linkIn(m).token);
    const change = await h.call('put', `/password-resets/${second}`).send({ password: 'second-link-password' });

    expect(change.status).toBe(200);
    expect((await h.call('get', `/password-resets/${first}`)).status).toBe(404);
  });
});

describe('the mail message on the broker', () => {
  let pipeline: MailPipeline;
  let h: IdentityHarness;
  beforeAll(async () => {
    // No mailer: the message stays in the queue for the test to read.
    pipeline = await startMailPipeline({ startMailer: false });
    h = await pipeline.identity();
  });
  afterAll(() => pipeline?.stop());

  test('when a reset is asked, then the relay publishes the envelope as persistent JSON, with its id as messageId and the HTTP request id in the headers', async () => {
    const user = await h.aUser();
    const requestId = `req-headers-${uniqueSuffix()}`;

    const res = await h.call('post', '/password-resets', MASTER).set('X-Request-Id', requestId).send({ email: user.email });
    const [message] = await pipeline.mail.take(pipeline.mail.topology.queue, 1);

    expect(res.status).toBe(202);
    const [row] = await resetsOf(h, user.id);
    const envelope = JSON.parse(message!.content.toString('utf8'));
    expect(envelope).toEqual(row!.mail!.envelope);
    expect(envelope).toMatchObject({ type: 'mail.password-reset', requestId, data: { to: user.email } });
    expect(message!.fields.routingKey).toBe('mail.password-reset');
    expect(message!.properties).toMatchObject({
      messageId: envelope.id,
      type: 'mail.password-reset',
      contentType: 'application/json',
      deliveryMode: 2,
      headers: { [MESSAGE_HEADERS.requestId]: requestId },
    });
  });
});
