import { afterEach, beforeEach, describe, expect, jest, test } from '@jest/globals';
import { MESSAGE_HEADERS } from '@restgate/shared/messaging';
import { aPasswordReset, aPasswordResetMessage } from './support/builders';
import { aMailerEnv, ROUTING_KEY, type MailerEnv } from './support/harness';
import { startTestSmtp, type TestSmtp } from './support/smtp';

jest.setTimeout(20_000);

const JSON_PROPS = { contentType: 'application/json' };

describe('poison mail messages', () => {
  let env: MailerEnv;
  let smtp: TestSmtp;

  beforeEach(async () => {
    smtp = await startTestSmtp();
    env = await aMailerEnv({ SMTP_URL: smtp.url });
    await env.startMailer();
  });

  afterEach(async () => {
    await env.cleanup();
    await smtp.stop();
  });

  test.each([
    ['a body that is not JSON', () => Buffer.from('{"id": "not json'), {}, /not valid JSON/],
    ['a body that is not an envelope', () => Buffer.from(JSON.stringify({ hello: 'world' })), JSON_PROPS, /schema: id: .*required/],
    [
      'data that misses the link',
      () => {
        const { link: _link, ...data } = aPasswordReset();
        return Buffer.from(JSON.stringify({ ...aPasswordResetMessage(), data }));
      },
      JSON_PROPS,
      /schema: data\.link: .*required/,
    ],
    [
      'a recipient with CR/LF (header injection)',
      () =>
        Buffer.from(
          JSON.stringify({ ...aPasswordResetMessage(), data: aPasswordReset({ to: 'victim@example.test\r\nBcc: everyone@example.test' }) }),
        ),
      JSON_PROPS,
      /data\.to: to must not contain control characters/,
    ],
    [
      'an unknown message type',
      () => Buffer.from(JSON.stringify({ ...aPasswordResetMessage(), type: 'mail.spam' })),
      JSON_PROPS,
      /type: .*must be/,
    ],
  ])(
    'when the queue gets %s, then it goes to the dead-letter queue with the reason, and the next valid message is still delivered',
    async (_case, body, props, reason) => {
      // Arrange
      const poison = body();
      const valid = aPasswordResetMessage();

      // Act
      await env.publishRaw(poison, { ...props, messageId: 'poison-1', headers: { [MESSAGE_HEADERS.requestId]: 'req-poison' } });
      await env.publisher.publish(env.topology.exchange, ROUTING_KEY, valid);

      // Assert
      const [dead] = await env.takeDeadLetters(1);
      expect(dead!.content.equals(poison)).toBe(true);
      expect(dead!.properties.messageId).toBe('poison-1');
      const headers = dead!.properties.headers!;
      expect(String(headers[MESSAGE_HEADERS.deadReason])).toMatch(/^invalid message: /);
      expect(String(headers[MESSAGE_HEADERS.deadReason])).toMatch(reason);
      expect(headers).toMatchObject({
        [MESSAGE_HEADERS.requestId]: 'req-poison',
        [MESSAGE_HEADERS.deadQueue]: env.topology.queue,
        [MESSAGE_HEADERS.originalRoutingKey]: ROUTING_KEY,
      });
      const [mail] = await smtp.waitForMails(1);
      expect(mail!.messageId).toBe(`<${valid.id}@restgate.test>`);
      expect(smtp.received).toHaveLength(1);
      expect(await env.depth(env.topology.queue)).toBe(0);
      expect(await env.deliveries.countDocuments({ _id: 'poison-1' })).toBe(0);
    },
  );
});
