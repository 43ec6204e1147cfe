import type { ParsedMail } from 'mailparser';
import { randomEmail } from '@restgate/shared/testing';
import { aUser, signIn, signUp } from '../support/actors';
import { client, type Client } from '../support/http';
import { outboxMails, recipientOf } from '../support/outbox';
import { expectProblem } from '../support/shapes';
import { startTestStack, type TestStack } from '../support/stack';

/**
 * Password reset through the gateway, with the whole stack: identity's outbox relay publishes to
 * RabbitMQ, the mailer (no SMTP server here) writes each mail to the stack's outbox folder as
 * `<message id>.eml`, and the test reads the link from there, as a user reads it from the mail.
 */
let stack: TestStack;
let api: Client;

beforeAll(async () => {
  stack = await startTestStack({ env: { RESET_LINK_ORIGINS: 'https://app.example.test' } });
  api = client(stack.url);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

const recipient = recipientOf;

/** The mails to `email` once there are `count` of them (the mailer works asynchronously). */
async function mailsTo(email: string, count = 1, timeoutMs = 20_000): Promise<ParsedMail[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    // Sign-up sends a verification mail too: only reset mails count here.
    const mails = (await outboxMails(stack.outboxDir)).filter((m) => recipient(m) === email && m.subject === 'Reset your password');
    if (mails.length >= count) return mails;
    if (Date.now() > deadline) throw new Error(`no mail to ${email} in ${stack.outboxDir} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function linkIn(mail: ParsedMail): { link: string; token: string } {
  const match = /(https?:\/\/\S+\/)([A-Za-z0-9_-]{43})(?=\s|$)/.exec(mail.text ?? '');
  if (!match) throw new Error(`no reset link in: ${mail.text}`);
  return { link: `${match[1]}${match[2]}`, token: match[2]! };
}

const requestReset = (body: Record<string, string>) =>
  api.post('/password-resets', { form: { ...body, access_token: stack.secrets.MASTER_KEY } });

describe('password reset', () => {
  test('when a registered user asks, then a mail arrives whose token, through the gateway, shows the user, sets the password once, and the new password signs in', async () => {
    // Arrange
    const user = aUser();
    const created = await signUp(api, stack, user);

    // Act
    const asked = await requestReset({ email: user.email });
    const [mail] = await mailsTo(user.email);
    const { link, token } = linkIn(mail!);
    const look = await api.get(`/password-resets/${token}`);
    const change = await api.request('PUT', `/password-resets/${token}`, { form: { password: 'a-fresh-password' } });
    const again = await api.request('PUT', `/password-resets/${token}`, { form: { password: 'yet-another-password' } });

    // Assert
    expect(asked.status).toBe(202);
    expect(mail!.subject).toBe('Reset your password');
    // No link asked for: the configured default page (here this stack's gateway's own reset page).
    expect(link).toBe(`${stack.url}/password-resets/${token}`);
    expect(look.status).toBe(200);
    expect(look.body).toEqual({ user: { id: created.body.id, name: created.body.name, picture: created.body.picture, email: user.email } });
    expect(change.status).toBe(200);
    // The mailed link came back: the address is proven too.
    expect(change.body).toEqual({ ...created.body, emailVerified: true });
    expectProblem(again, 404);
    expect((await signIn(api, stack, { ...user, password: 'a-fresh-password' })).status).toBe(201);
    expect((await signIn(api, stack, user)).status).toBe(401);
  });

  test('when the e-mail is unknown, then the same answer as for a registered one, and no mail', async () => {
    const user = aUser();
    await signUp(api, stack, user);
    const unknown = randomEmail('nobody');

    const stranger = await requestReset({ email: unknown });
    const known = await requestReset({ email: user.email });

    expect(stranger.status).toBe(202);
    expect(stranger.body).toEqual(known.body);
    expect(stranger.headers.get('content-type')).toBe(known.headers.get('content-type'));
    await mailsTo(user.email);
    expect((await outboxMails(stack.outboxDir)).filter((m) => recipient(m) === unknown)).toEqual([]);
  });

  test('when the link is on an allowed origin, then the mail links there', async () => {
    const user = aUser();
    await signUp(api, stack, user);

    await requestReset({ email: user.email, link: 'https://app.example.test/reset' });

    const [mail] = await mailsTo(user.email);
    expect(linkIn(mail!).link).toMatch(/^https:\/\/app\.example\.test\/reset\/[A-Za-z0-9_-]{43}$/);
  });

  test('when the token is unknown or malformed, then GET and PUT through the gateway are 404', async () => {
    for (const token of ['A'.repeat(43), 'not-a-token']) {
      expectProblem(await api.get(`/password-resets/${token}`), 404);
      expectProblem(await api.request('PUT', `/password-resets/${token}`, { form: { password: 'whatever-password' } }), 404);
    }
  });

  test('when the master key is missing, then 401 and no mail', async () => {
    const reply = await api.post('/password-resets', { form: { email: randomEmail() } });

    expectProblem(reply, 401);
  });
});
