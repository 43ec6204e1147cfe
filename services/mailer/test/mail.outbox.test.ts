import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, jest, test } from '@jest/globals';
import { simpleParser } from 'mailparser';
import { aPasswordResetMessage } from './support/builders';
import { eventually } from './support/eventually';
import { aMailerEnv, ROUTING_KEY, type MailerEnv } from './support/harness';

jest.setTimeout(20_000);

describe('mail.password-reset message without an SMTP server (outbox folder)', () => {
  let env: MailerEnv | undefined;
  let dir: string | undefined;

  afterEach(async () => {
    await env?.cleanup();
    if (dir) await rm(dir, { recursive: true, force: true });
    env = dir = undefined;
  });

  test('when SMTP_URL is empty, then the mail is written to OUTBOX_DIR as <message id>.eml and recorded with its path', async () => {
    // Arrange
    dir = path.join(await mkdtemp(path.join(os.tmpdir(), 'mailer-outbox-')), 'not-yet-created');
    env = await aMailerEnv({ SMTP_URL: '', OUTBOX_DIR: dir });
    await env.startMailer();
    const message = aPasswordResetMessage();

    // Act
    await env.publisher.publish(env.topology.exchange, ROUTING_KEY, message);

    // Assert
    const file = path.join(dir, `${message.id}.eml`);
    const delivery = await eventually(
      async () => {
        const doc = await env!.deliveries.findOne({ _id: message.id });
        return doc?.status === 'sent' ? doc : null;
      },
      { what: 'the delivery record' },
    );
    expect(delivery.location).toBe(file);
    expect(await readdir(dir)).toEqual([`${message.id}.eml`]);
    const raw = await readFile(file);
    expect(raw.toString()).toContain('\r\n');
    const mail = await simpleParser(raw);
    expect(mail.to).toMatchObject({ value: [{ address: message.data.to }] });
    expect(mail.subject).toBe('Reset your password');
    expect(mail.text).toContain(message.data.link);
    expect(mail.html).toContain(message.data.link);
  });
});
