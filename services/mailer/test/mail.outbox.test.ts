import { mkdtemp, readFile, readdir, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, jest, test } from '@jest/globals';
import { simpleParser } from 'mailparser';
import { capturingLogger } from '@restgate/shared/testing';
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
    // Owner only, whatever the umask: the mail holds a live reset link.
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const raw = await readFile(file);
    expect(raw.toString()).toContain('\r\n');
    const mail = await simpleParser(raw);
    expect(mail.to).toMatchObject({ value: [{ address: message.data.to }] });
    expect(mail.subject).toBe('Reset your password');
    expect(mail.text).toContain(message.data.link);
    expect(mail.html).toContain(message.data.link);
  });

  test('when a mail is written to the outbox, then one info line names the recipient, the subject and the link, decoded', async () => {
    // Arrange
    const { logger, lines } = capturingLogger();
    env = await aMailerEnv({ SMTP_URL: '' });
    await env.startMailer({}, logger);
    // Long enough that quoted-printable breaks it across lines in the .eml.
    const link = `http://127.0.0.1:9000/password-resets/${'t'.repeat(43)}-${'u'.repeat(40)}`;
    const message = aPasswordResetMessage({ link });

    // Act
    await env.publisher.publish(env.topology.exchange, ROUTING_KEY, message);

    // Assert
    const line = await eventually(async () => lines().find((l) => typeof l.location === 'string') ?? null, { what: 'the outbox log line' });
    expect(line).toMatchObject({
      level: 30,
      requestId: message.requestId,
      to: message.data.to,
      subject: 'Reset your password',
      links: [link],
    });
    expect(line.msg).toContain(link);
    const raw = (await readFile(line.location as string)).toString();
    expect(raw).not.toContain(link); // what the line is for: the file splits it
  });
});
