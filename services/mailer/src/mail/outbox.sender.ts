import { constants } from 'node:fs';
import { access, mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import nodemailer from 'nodemailer';
import { mailerErrors } from '../errors';
import type { MailSender } from '../domain/mail.model';
import { toMailOptions } from './mail-options';

/**
 * With no SMTP server configured (the local stack), each mail becomes `<dir>/<message id>.eml`.
 * Message ids are checked against MESSAGE_ID_PATTERN ([A-Za-z0-9_-]), so they are safe file names.
 */
export function createOutboxSender(options: { dir: string; from: string }): MailSender {
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'windows' });

  return {
    kind: 'outbox',

    async send(mail) {
      const location = path.join(options.dir, `${mail.id}.eml`);
      try {
        const info = await transport.sendMail(toMailOptions(mail, options.from));
        // Owner only: a mail holds a live reset link.
        await mkdir(options.dir, { recursive: true, mode: 0o700 });
        // Write then rename: whoever watches the folder never sees half a mail.
        const partial = `${location}.${process.pid}.partial`;
        await writeFile(partial, info.message as Buffer, { mode: 0o600 });
        await rename(partial, location);
      } catch (err) {
        throw mailerErrors.sendFailed(`cannot write ${location}: ${(err as Error).message}`, false, err);
      }
      return { location, preview: { to: mail.to.address, subject: mail.subject, links: linksIn(mail.text) } };
    },

    async check() {
      await mkdir(options.dir, { recursive: true, mode: 0o700 });
      await access(options.dir, constants.W_OK);
    },

    close() {
      transport.close();
    },
  };
}

/** The http(s) links of a plain-text body, as written (decoded: no quoted-printable soft breaks). */
export function linksIn(text: string): string[] {
  return [...text.matchAll(/https?:\/\/[^\s<>"]+/g)].map((m) => m[0]);
}
