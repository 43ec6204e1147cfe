import { afterEach, describe, expect, jest, test } from '@jest/globals';
import { aPasswordResetMessage } from './support/builders';
import { deferred } from './support/deferred';
import { eventually, pause } from './support/eventually';
import { aMailerEnv, ROUTING_KEY, testAmqpUrl, type MailerEnv } from './support/harness';
import { startTestSmtp, type TestSmtp } from './support/smtp';
import { startTcpProxy, type TcpProxy } from './support/tcp-proxy';

jest.setTimeout(20_000);

/** The broker URL, through `proxy`: cutting the proxy is the mailer losing its broker. */
function viaProxy(proxy: TcpProxy): string {
  const url = new URL(testAmqpUrl());
  url.port = String(proxy.port);
  url.hostname = '127.0.0.1';
  return url.toString();
}

function brokerPort(): number {
  return Number(new URL(testAmqpUrl()).port || 5672);
}

describe('mail.password-reset message when the mailer dies mid-flight', () => {
  let env: MailerEnv | undefined;
  let smtp: TestSmtp | undefined;
  let proxy: TcpProxy | undefined;

  afterEach(async () => {
    await env?.cleanup();
    await smtp?.stop();
    await proxy?.close();
    env = smtp = proxy = undefined;
  });

  test('when the mailer loses the broker after sending but before acking, and another mailer takes over, then the redelivered message is skipped: exactly one mail', async () => {
    // Arrange: the SMTP server holds its "250 OK" until we have cut the mailer off the broker
    const arrived = deferred();
    const release = deferred();
    smtp = await startTestSmtp({
      beforeAccepting: async () => {
        arrived.resolve();
        await release.promise;
      },
    });
    proxy = await startTcpProxy(brokerPort());
    env = await aMailerEnv({ SMTP_URL: smtp.url });
    const first = await env.startMailer({ AMQP_URL: viaProxy(proxy) });
    const message = aPasswordResetMessage();
    await env.publisher.publish(env.topology.exchange, ROUTING_KEY, message);
    await arrived.promise;

    // Act: the first mailer dies with the message unacked (the broker takes it back) ...
    proxy.cut();
    await eventually(() => !first.amqp.isConnected(), { what: 'the first mailer to notice the lost broker' });
    release.resolve();
    await eventually(async () => (await env!.deliveries.findOne({ _id: message.id }))?.status === 'sent', {
      what: 'the send to be recorded',
    });
    await first.stop(1_000);
    // ... and a new one starts and gets the redelivery
    const second = await env.startMailer();
    await pause(1_000);
    await second.stop(2_000);

    // Assert: one mail; nothing left in any queue (an unacked message would be back in the queue now)
    expect(smtp.received).toHaveLength(1);
    expect(smtp.mails[0]!.messageId).toBe(`<${message.id}@restgate.test>`);
    expect(await env.deliveries.findOne({ _id: message.id })).toMatchObject({ status: 'sent', sends: 1 });
    expect(await env.depth(env.topology.queue)).toBe(0);
    for (const retry of env.topology.retryQueues) expect(await env.depth(retry.name)).toBe(0);
    expect(await env.depth(env.topology.deadQueue)).toBe(0);
  });

  test('when the broker connection drops while a mail is being sent and comes back, then the same mailer reconnects, skips the redelivered copy, and sends exactly one mail', async () => {
    // Arrange
    const arrived = deferred();
    const release = deferred();
    smtp = await startTestSmtp({
      beforeAccepting: async () => {
        arrived.resolve();
        await release.promise;
      },
    });
    proxy = await startTcpProxy(brokerPort());
    env = await aMailerEnv({ SMTP_URL: smtp.url });
    const mailer = await env.startMailer({ AMQP_URL: viaProxy(proxy) });
    const message = aPasswordResetMessage();
    await env.publisher.publish(env.topology.exchange, ROUTING_KEY, message);
    await arrived.promise;

    // Act: the connection drops and comes back while the send is still waiting for its "250"
    proxy.cut();
    await eventually(() => !mailer.amqp.isConnected(), { what: 'the mailer to notice the lost broker' });
    proxy.restore();
    await mailer.amqp.waitUntilConnected(10_000);
    await pause(300);
    release.resolve();

    // Assert
    await smtp.waitForMails(1);
    await eventually(async () => (await env!.deliveries.findOne({ _id: message.id }))?.status === 'sent', {
      what: 'the send to be recorded',
    });
    await pause(1_000);
    await mailer.stop(2_000);
    expect(smtp.received).toHaveLength(1);
    expect(await env.deliveries.findOne({ _id: message.id })).toMatchObject({ status: 'sent', sends: 1 });
    expect(await env.depth(env.topology.queue)).toBe(0);
    for (const retry of env.topology.retryQueues) expect(await env.depth(retry.name)).toBe(0);
    expect(await env.depth(env.topology.deadQueue)).toBe(0);
  });
});
