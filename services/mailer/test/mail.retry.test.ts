import { afterEach, describe, expect, jest, test } from '@jest/globals';
import { MESSAGE_HEADERS } from '@restgate/shared/messaging';
import { aPasswordResetMessage } from './support/builders';
import { eventually, pause } from './support/eventually';
import { aMailerEnv, ROUTING_KEY, type MailerEnv } from './support/harness';
import { startTestSmtp, type TestSmtp } from './support/smtp';
import { freePort } from './support/tcp-proxy';

jest.setTimeout(20_000);

describe('mail.password-reset message when the SMTP server fails', () => {
  let env: MailerEnv | undefined;
  let smtp: TestSmtp | undefined;

  afterEach(async () => {
    await env?.cleanup();
    await smtp?.stop();
    env = undefined;
    smtp = undefined;
  });

  test('when the SMTP server is down and comes back within the retry budget, then the mail is retried and delivered once', async () => {
    // Arrange
    const port = await freePort();
    env = await aMailerEnv({ SMTP_URL: `smtp://127.0.0.1:${port}`, RETRY_DELAYS_MS: [200, 400, 800, 1600, 3200] });
    await env.startMailer();
    const message = aPasswordResetMessage();

    // Act
    await env.publisher.publish(env.topology.exchange, ROUTING_KEY, message);
    await eventually(async () => (await env!.deliveries.findOne({ _id: message.id }))?.status === 'failed', {
      what: 'a failed first attempt',
    });
    smtp = await startTestSmtp({ port });

    // Assert
    const [mail] = await smtp.waitForMails(1);
    expect(mail!.messageId).toBe(`<${message.id}@restgate.test>`);
    // The delivery log records the send right after the SMTP server accepts it: not before we see the mail.
    const delivery = await eventually(
      async () => {
        const found = await env!.deliveries.findOne({ _id: message.id });
        return found?.status === 'sent' ? found : undefined;
      },
      { what: 'the delivery recorded as sent' },
    );
    expect(delivery.sends).toBeGreaterThanOrEqual(2);
    expect(delivery.lastError).toMatch(/ECONNREFUSED/);
    await pause(300);
    expect(smtp.mails).toHaveLength(1);
    expect(await env.depth(env.topology.deadQueue)).toBe(0);
    expect(await env.depth(env.topology.queue)).toBe(0);
  });

  test('when the SMTP server stays down beyond the retry budget, then the message lands in the dead-letter queue with the reason and the attempt count', async () => {
    // Arrange
    const port = await freePort();
    env = await aMailerEnv({ SMTP_URL: `smtp://127.0.0.1:${port}`, RETRY_DELAYS_MS: [100, 200] });
    await env.startMailer();
    const message = aPasswordResetMessage();

    // Act
    await env.publisher.publish(env.topology.exchange, ROUTING_KEY, message);

    // Assert
    const [dead] = await env.takeDeadLetters(1);
    expect(JSON.parse(dead!.content.toString())).toEqual(message);
    expect(dead!.properties.messageId).toBe(message.id);
    const headers = dead!.properties.headers!;
    expect(String(headers[MESSAGE_HEADERS.deadReason])).toMatch(/^gave up after 3 attempts: SMTP .*ECONNREFUSED/);
    expect(headers).toMatchObject({
      [MESSAGE_HEADERS.attempts]: 3,
      [MESSAGE_HEADERS.requestId]: message.requestId,
      [MESSAGE_HEADERS.originalRoutingKey]: ROUTING_KEY,
    });
    expect(await env.deliveries.findOne({ _id: message.id })).toMatchObject({ status: 'failed', sends: 3 });
    for (const retry of env.topology.retryQueues) expect(await env.depth(retry.name)).toBe(0);
    expect(await env.depth(env.topology.queue)).toBe(0);
  });

  test('when the SMTP server refuses the recipient for good (550), then the message is dead-lettered at once, without retries', async () => {
    // Arrange
    smtp = await startTestSmtp({ rejectRecipientWith: 550 });
    env = await aMailerEnv({ SMTP_URL: smtp.url, RETRY_DELAYS_MS: [100, 200] });
    await env.startMailer();
    const message = aPasswordResetMessage();

    // Act
    await env.publisher.publish(env.topology.exchange, ROUTING_KEY, message);

    // Assert
    const [dead] = await env.takeDeadLetters(1);
    expect(String(dead!.properties.headers![MESSAGE_HEADERS.deadReason])).toMatch(/550/);
    expect(dead!.properties.headers).toMatchObject({ [MESSAGE_HEADERS.attempts]: 1 });
    expect(await env.deliveries.findOne({ _id: message.id })).toMatchObject({ status: 'failed', sends: 1 });
    expect(smtp.received).toHaveLength(0);
  });

  test('when the SMTP server stalls after the data, then the send is abandoned before the lease runs out and retried: one mail accepted', async () => {
    // Arrange: the first mail's "250" never comes
    smtp = await startTestSmtp({
      beforeAccepting: async () => (smtp!.received.length === 1 ? new Promise<void>(() => undefined) : undefined),
    });
    env = await aMailerEnv({ SMTP_URL: smtp.url, SENDING_LEASE_MS: 2_000, RETRY_DELAYS_MS: [100, 200] });
    await env.startMailer();
    const message = aPasswordResetMessage();

    // Act
    await env.publisher.publish(env.topology.exchange, ROUTING_KEY, message);

    // Assert
    await smtp.waitForMails(1);
    expect(smtp.received).toHaveLength(2);
    const delivery = await eventually(
      async () => {
        const doc = await env!.deliveries.findOne({ _id: message.id });
        return doc?.status === 'sent' ? doc : null;
      },
      { what: 'the delivery record' },
    );
    expect(delivery).toMatchObject({ sends: 2 });
    expect(delivery.lastError).toMatch(/abort/i);
  });

  test('when the delivery log is unreachable, then nothing is sent: the message is retried, then dead-lettered with the reason', async () => {
    // Arrange
    smtp = await startTestSmtp();
    env = await aMailerEnv({ SMTP_URL: smtp.url, RETRY_DELAYS_MS: [100] });
    await env.startMailer({ MONGODB_URL: `mongodb://127.0.0.1:${await freePort()}` });
    const message = aPasswordResetMessage();

    // Act
    await env.publisher.publish(env.topology.exchange, ROUTING_KEY, message);

    // Assert
    const [dead] = await env.takeDeadLetters(1, 15_000);
    expect(String(dead!.properties.headers![MESSAGE_HEADERS.deadReason])).toMatch(
      /^gave up after 2 attempts: The delivery log is unavailable/,
    );
    expect(smtp.received).toHaveLength(0);
  });
});
