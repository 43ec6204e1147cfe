import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer, type SMTPServerDataStream } from 'smtp-server';
import { eventually } from './eventually';

export interface TestSmtpOptions {
  /** Listen here (a port the mailer already points at); 0 = any free port. */
  port?: number;
  /** Answer RCPT TO with this SMTP error (e.g. 550) instead of accepting. */
  rejectRecipientWith?: number;
  /** Called once a mail's data has arrived and before the server answers 250; the answer waits for it. */
  beforeAccepting?: (mail: ParsedMail) => Promise<void>;
}

export interface TestSmtp {
  port: number;
  url: string;
  /** Every mail the server accepted (answered 250), parsed. */
  mails: ParsedMail[];
  /** Mails whose data arrived, accepted or not yet. */
  received: ParsedMail[];
  waitForMails(count: number, timeoutMs?: number): Promise<ParsedMail[]>;
  stop(): Promise<void>;
}

/** A real SMTP server on loopback (the `smtp-server` package) that keeps what it receives. */
export async function startTestSmtp(options: TestSmtpOptions = {}): Promise<TestSmtp> {
  const mails: ParsedMail[] = [];
  const received: ParsedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onRcptTo(_address, _session, callback) {
      if (options.rejectRecipientWith) {
        const err = Object.assign(new Error('Mailbox unavailable'), { responseCode: options.rejectRecipientWith });
        return callback(err);
      }
      callback();
    },
    onData(stream: SMTPServerDataStream, _session, callback) {
      simpleParser(stream)
        .then(async (mail) => {
          received.push(mail);
          await options.beforeAccepting?.(mail);
          mails.push(mail);
          callback();
        })
        .catch((err: Error) => callback(err));
    },
  });
  server.on('error', () => undefined);
  await new Promise<void>((resolve, reject) => {
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
    server.server.once('error', reject);
  });
  const port = (server.server.address() as AddressInfo).port;
  return {
    port,
    url: `smtp://127.0.0.1:${port}`,
    mails,
    received,
    async waitForMails(count, timeoutMs = 10_000) {
      await eventually(() => mails.length >= count, { timeoutMs, what: `${count} mail(s) at the SMTP server` });
      return mails;
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
