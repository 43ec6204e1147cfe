/**
 * The mails a test stack's mailer wrote to its outbox folder (local mode, no SMTP), read as a user
 * reads their mail: parsed .eml files.
 */
import fs from 'node:fs';
import path from 'node:path';
import { simpleParser, type ParsedMail } from 'mailparser';

/** Every mail in `outboxDir` so far. */
export async function outboxMails(outboxDir: string): Promise<ParsedMail[]> {
  if (!fs.existsSync(outboxDir)) return [];
  const files = fs.readdirSync(outboxDir).filter((f) => f.endsWith('.eml'));
  return Promise.all(files.map((f) => simpleParser(fs.readFileSync(path.join(outboxDir, f)))));
}

/** The first recipient's address. */
export const recipientOf = (mail: ParsedMail): string | undefined => (Array.isArray(mail.to) ? mail.to[0] : mail.to)?.value[0]?.address;

/**
 * The single-use links to `page` in the mails to `email` (sign-up mails a verification link, a
 * reset request a reset link), once there are `count`; throws after `timeoutMs`.
 */
export async function mailedLinks(
  outboxDir: string,
  email: string,
  page: 'password-resets' | 'email-verifications',
  { count = 1, timeoutMs = 20_000 }: { count?: number; timeoutMs?: number } = {},
): Promise<string[]> {
  const pattern = new RegExp(`https?://\\S+/${page}/[A-Za-z0-9_-]{43}`);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const links = (await outboxMails(outboxDir))
      .filter((mail) => recipientOf(mail) === email)
      .map((mail) => pattern.exec(mail.text ?? '')?.[0])
      .filter((link): link is string => Boolean(link));
    if (links.length >= count) return links;
    if (Date.now() > deadline) throw new Error(`no ${page} mail to ${email} in ${outboxDir} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
