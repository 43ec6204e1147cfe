import request from 'supertest';
import { afterEach, describe, expect, jest, test } from '@jest/globals';
import { aPasswordResetMessage } from './support/builders';
import { eventually, pause } from './support/eventually';
import { aMailerEnv, ROUTING_KEY, type MailerEnv } from './support/harness';
import { startTestSmtp, type TestSmtp } from './support/smtp';

jest.setTimeout(20_000);

describe('mail.password-reset message', () => {
  let env: MailerEnv;
  let smtp: TestSmtp;

  afterEach(async () => {
    await env?.cleanup();
    await smtp?.stop();
  });

  test('when a reset message is published, then one mail reaches the SMTP server with the recipient, subject, link and expiry, as text and HTML', async () => {
    // Arrange
    smtp = await startTestSmtp();
    env = await aMailerEnv({ SMTP_URL: smtp.url });
    await env.startMailer();
    const message = aPasswordResetMessage({ name: 'Ada <b>Lovelace</b>' });

    // Act
    await env.publisher.publish(env.topology.exchange, ROUTING_KEY, message);

    // Assert
    const [mail] = await smtp.waitForMails(1);
    // The name greets (escaped) but never goes into To:, a header that shows as the sender's text.
    expect(mail!.to).toMatchObject({ value: [{ address: message.data.to, name: '' }] });
    expect(mail!.from?.value[0]?.address).toBe('no-reply@restgate.test');
    expect(mail!.subject).toBe('Reset your password');
    expect(mail!.messageId).toBe(`<${message.id}@restgate.test>`);
    expect(mail!.text).toContain(message.data.link);
    expect(mail!.text).toContain('Hello Ada <b>Lovelace</b>,');
    expect(mail!.text).toContain('one hour');
    expect(mail!.text).toMatch(/didn't ask for this, ignore/);
    expect(mail!.html).toContain(`href="${message.data.link}"`);
    expect(mail!.html).toContain('Hello Ada &lt;b&gt;Lovelace&lt;/b&gt;,');
    expect(mail!.html).not.toContain('<b>Lovelace');
    // The delivery log records the send right after the SMTP server accepts it: not before we see the mail.
    const delivery = await eventually(
      async () => {
        const found = await env.deliveries.findOne({ _id: message.id });
        return found?.status === 'sent' ? found : undefined;
      },
      { what: 'the delivery recorded as sent' },
    );
    expect(delivery).toMatchObject({ status: 'sent', sends: 1, requestId: message.requestId, type: 'mail.password-reset' });
    expect(await env.depth(env.topology.queue)).toBe(0);
  });

  test('when the same message id arrives twice, then only one mail is sent and both copies are acknowledged', async () => {
    // Arrange
    smtp = await startTestSmtp();
    env = await aMailerEnv({ SMTP_URL: smtp.url });
    const mailer = await env.startMailer();
    const message = aPasswordResetMessage();
    await env.publisher.publish(env.topology.exchange, ROUTING_KEY, message);
    await smtp.waitForMails(1);

    // Act: a redelivery, as after a crash between the send and the ack
    await env.publisher.publish(env.topology.exchange, ROUTING_KEY, message);
    const next = aPasswordResetMessage();
    await env.publisher.publish(env.topology.exchange, ROUTING_KEY, next);

    // Assert: the later message went out, the duplicate did not
    await smtp.waitForMails(2);
    await pause(300);
    expect(smtp.mails.map((m) => m.messageId)).toEqual([`<${message.id}@restgate.test>`, `<${next.id}@restgate.test>`]);
    expect(await env.deliveries.findOne({ _id: message.id })).toMatchObject({ status: 'sent', sends: 1 });
    expect(await env.depth(env.topology.queue)).toBe(0);
    const metrics = await request(mailer.app).get('/metrics');
    expect(metrics.text).toMatch(/^mail_sent_total 2$/m);
    expect(metrics.text).toMatch(/^mail_duplicates_skipped_total 1$/m);
    expect(metrics.text).toMatch(/^mail_dead_lettered_total 0$/m);
  });
});
