import { afterEach, describe, expect, jest, test } from '@jest/globals';
import { aPasswordResetMessage } from './support/builders';
import { deferred } from './support/deferred';
import { eventually, pause } from './support/eventually';
import { aMailerEnv, ROUTING_KEY, type MailerEnv } from './support/harness';
import { startTestSmtp, type TestSmtp } from './support/smtp';

jest.setTimeout(20_000);

describe('mailer stop', () => {
  let env: MailerEnv | undefined;
  let smtp: TestSmtp | undefined;

  afterEach(async () => {
    await env?.cleanup();
    await smtp?.stop();
    env = smtp = undefined;
  });

  test('when stopped while a mail is being sent, then the send finishes and its message is acknowledged before the connection closes', async () => {
    // Arrange
    const arrived = deferred();
    const release = deferred();
    smtp = await startTestSmtp({
      beforeAccepting: async () => {
        arrived.resolve();
        await release.promise;
      },
    });
    env = await aMailerEnv({ SMTP_URL: smtp.url });
    const mailer = await env.startMailer();
    const message = aPasswordResetMessage();
    await env.publisher.publish(env.topology.exchange, ROUTING_KEY, message);
    await arrived.promise;

    // Act
    const stopped = mailer.stop(5_000);
    await pause(200);
    release.resolve();
    await stopped;

    // Assert
    expect(smtp.mails).toHaveLength(1);
    expect(await env.deliveries.findOne({ _id: message.id })).toMatchObject({ status: 'sent', sends: 1 });
    await pause(300);
    expect(await env.depth(env.topology.queue)).toBe(0);
    for (const retry of env.topology.retryQueues) expect(await env.depth(retry.name)).toBe(0);
  });

  test('when a send outlasts the stop timeout, then it is abandoned and its message is kept for a retry, not lost', async () => {
    // Arrange: a server that never answers the data
    const arrived = deferred();
    smtp = await startTestSmtp({
      beforeAccepting: () => {
        arrived.resolve();
        return new Promise<void>(() => undefined);
      },
    });
    env = await aMailerEnv({ SMTP_URL: smtp.url });
    const mailer = await env.startMailer();
    const message = aPasswordResetMessage();
    await env.publisher.publish(env.topology.exchange, ROUTING_KEY, message);
    await arrived.promise;

    // Act
    const started = Date.now();
    await mailer.stop(300);

    // Assert: stopped in bounded time; the message waits in the queue for the next mailer
    expect(Date.now() - started).toBeLessThan(3_000);
    await eventually(async () => (await env!.depth(env!.topology.queue)) === 1, { what: 'the message back in the work queue' });
    expect(await env.deliveries.findOne({ _id: message.id })).toMatchObject({ status: 'failed', sends: 1 });
    expect(smtp.mails).toHaveLength(0);
  });
});
