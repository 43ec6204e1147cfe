/**
 * Builders and the mail pipeline for the password-reset tests: the real mailer in-process (the
 * mailer's own test harness), a real SMTP server, and the RabbitMQ of jest's global setup.
 */
import { uniqueSuffix } from '@restgate/shared/testing';
import type { ParsedMail } from 'mailparser';
import { ObjectId } from 'mongodb';
import { aMailerEnv, testAmqpUrl, type MailerEnv } from '../../../mailer/test/support/harness';
import { startTestSmtp, type TestSmtp } from '../../../mailer/test/support/smtp';
import type { TcpProxy } from '../../../mailer/test/support/tcp-proxy';
import { EMAIL_VERIFICATIONS_COLLECTION, PASSWORD_RESETS_COLLECTION, type LinkTokenDocument } from '../../src/emailed-links/link-token.repository';
import { newLinkToken } from '../../src/emailed-links/emailed-link';
import { linkMail } from '../../src/emailed-links/link-mail';
import { startIdentity, type IdentityHarness, type TestUser } from './identity-harness';

import { eventually } from '../../../mailer/test/support/eventually';

export { eventually, pause } from '../../../mailer/test/support/eventually';
export { startTcpProxy, type TcpProxy } from '../../../mailer/test/support/tcp-proxy';

const HOUR_MS = 3_600_000;
/** A token as the service makes them: 43 base64url characters. */
export const TOKEN_PATTERN = /[A-Za-z0-9_-]{43}/;

/**
 * A live reset of `user`, stored as the service stores one (hash only), with its token. It
 * replaces the user's other resets, as a request does; with `beside`, it is written next to them
 * instead, as rows from before a user was held to one live reset may still be.
 */
export async function aPasswordReset(
  h: IdentityHarness,
  user: Pick<TestUser, 'id' | 'email'>,
  overrides: { expiresAt?: Date; beside?: boolean } = {},
): Promise<{ token: string; id: string }> {
  const { token, tokenHash } = newLinkToken();
  const expiresAt = overrides.expiresAt ?? new Date(Date.now() + HOUR_MS);
  const envelope = linkMail(
    'mail.password-reset',
    { to: user.email, name: 'Test', link: `https://app.example.test/reset/${token}`, expiresAt: expiresAt.toISOString() },
    `req-${uniqueSuffix()}`,
  );
  if (overrides.beside) {
    const now = new Date();
    const mail = { envelope, status: 'pending' as const, attempts: 0, nextAttemptAt: now, sentAt: null };
    await resets(h).insertOne({ _id: new ObjectId(), userId: new ObjectId(user.id), tokenHash, expiresAt, createdAt: now, mail });
  } else {
    await h.links.passwordResets.links.replaceWithMail({ userId: user.id, address: user.email, tokenHash, expiresAt, envelope });
  }
  const row = await resets(h).findOne({ tokenHash });
  return { token, id: row!._id.toHexString() };
}

/** The token of the verification link sign-up queued for `userId`, read from the stored mail. */
export async function verificationTokenOf(h: IdentityHarness, userId: string): Promise<string> {
  const row = await h.db.collection<LinkTokenDocument>(EMAIL_VERIFICATIONS_COLLECTION).findOne({ userId: new ObjectId(userId) });
  if (!row?.mail) throw new Error(`no verification mail stored for user ${userId}`);
  return row.mail.envelope.data.link.split('/').pop()!;
}

export function resets(h: IdentityHarness) {
  return h.db.collection<LinkTokenDocument>(PASSWORD_RESETS_COLLECTION);
}

/** The reset rows of a user, oldest first. */
export function resetsOf(h: IdentityHarness, userId: string): Promise<LinkTokenDocument[]> {
  return resets(h)
    .find({ userId: new ObjectId(userId) })
    .sort({ createdAt: 1 })
    .toArray();
}

/** The rows whose mail goes to `email` (none for an unknown e-mail). */
export function mailRowsTo(h: IdentityHarness, email: string): Promise<LinkTokenDocument[]> {
  return resets(h).find({ 'mail.envelope.data.to': email }).toArray();
}

export function recipientOf(mail: ParsedMail): string | undefined {
  const to = Array.isArray(mail.to) ? mail.to[0] : mail.to;
  return to?.value[0]?.address;
}

/** The reset link of a mail (from its text part) and the token at its end. */
export function linkIn(mail: ParsedMail): { link: string; token: string } {
  const match = /(https?:\/\/\S+\/)([A-Za-z0-9_-]{43})(?=\s|$)/.exec(mail.text ?? '');
  if (!match) throw new Error(`no reset link in the mail: ${mail.text}`);
  return { link: `${match[1]}${match[2]}`, token: match[2]! };
}

/** The broker URL through `proxy`: cutting the proxy is identity losing its broker. */
export function viaProxy(proxy: TcpProxy): string {
  const url = new URL(testAmqpUrl());
  url.hostname = '127.0.0.1';
  url.port = String(proxy.port);
  return url.toString();
}

export function brokerPort(): number {
  return Number(new URL(testAmqpUrl()).port || 5672);
}

export interface MailPipeline {
  /** The mailer's test environment: its topology prefix, its queues, `take`, `depth`… */
  mail: MailerEnv;
  smtp: TestSmtp;
  /** An identity app on this pipeline's topology, its relay started and connected. */
  identity(env?: Record<string, string>, options?: { abuse?: boolean; verifications?: boolean }): Promise<IdentityHarness>;
  /** Mails the SMTP server accepted for `email`. */
  mailsTo(email: string): ParsedMail[];
  /** Waits for `count` mails to `email`. */
  waitForMailsTo(email: string, count?: number, timeoutMs?: number): Promise<ParsedMail[]>;
  stop(): Promise<void>;
}

/** SMTP server → mailer (in-process, consuming) ← RabbitMQ ← identity's relay, all on a topology of their own. */
export async function startMailPipeline(options: { startMailer?: boolean } = {}): Promise<MailPipeline> {
  const smtp = await startTestSmtp();
  let mail: MailerEnv | undefined;
  try {
    mail = await aMailerEnv({ SMTP_URL: smtp.url });
    if (options.startMailer !== false) await mail.startMailer();
  } catch (err) {
    // Nothing left running: an open server or connection would keep jest from exiting.
    await mail?.cleanup();
    await smtp.stop();
    throw err;
  }
  const identities: IdentityHarness[] = [];
  const mailsTo = (email: string) => smtp.mails.filter((m) => recipientOf(m) === email);
  return {
    mail,
    smtp,
    mailsTo,
    async identity(env = {}, options = {}) {
      const h = await startIdentity(
        {
          AMQP_URL: mail.settings.AMQP_URL,
          TOPOLOGY_PREFIX: mail.settings.TOPOLOGY_PREFIX,
          OUTBOX_POLL_MS: '200',
          ...env,
        },
        // Off unless asked: tests that count reset mails must not see the verification mail of
        // every user made by aUser().
        { abuse: options.abuse, verificationMails: options.verifications ?? false },
      );
      identities.push(h);
      h.start();
      await h.amqp.waitUntilConnected(10_000);
      return h;
    },
    async waitForMailsTo(email, count = 1, timeoutMs = 10_000) {
      await eventually(() => mailsTo(email).length >= count, { timeoutMs, what: `${count} mail(s) to ${email}` });
      return mailsTo(email);
    },
    async stop() {
      await Promise.allSettled(identities.map((h) => h.close()));
      await mail.cleanup();
      await smtp.stop();
    },
  };
}
