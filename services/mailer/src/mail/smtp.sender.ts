import nodemailer from 'nodemailer';
import { mailerErrors } from '../errors';
import type { MailSender } from '../domain/mail.model';
import { toMailOptions } from './mail-options';

/** nodemailer's defaults wait up to 10 minutes on a silent socket; a stuck server must fail fast. */
const TIMEOUTS = { connectionTimeout: 5_000, greetingTimeout: 5_000, socketTimeout: 15_000 };
/** `/ready` may be polled every few seconds: one SMTP handshake per this period is enough. */
const CHECK_CACHE_MS = 5_000;

/**
 * Sends over a pool of SMTP connections; `poolSize` is also how many mails are in flight at once.
 * A send still going after `sendTimeoutMs` is abandoned (its connection closed): socket timeouts
 * miss a server that trickles its replies, and the delivery log's lease must outlast every send.
 */
export function createSmtpSender(options: { url: string; from: string; poolSize: number; sendTimeoutMs: number }): MailSender {
  const transport = nodemailer.createTransport({
    url: options.url,
    pool: true,
    maxConnections: options.poolSize,
    // Retries are the queue's job (with delays, counted, dead-lettered at the end), not the pool's.
    maxRequeues: 0,
    ...TIMEOUTS,
    logger: false,
  });
  let lastCheck: { at: number; result: Promise<void> } | undefined;

  return {
    kind: 'smtp',

    async send(mail) {
      let info: { rejected?: unknown[]; response?: string };
      try {
        info = await transport.sendMail({ ...toMailOptions(mail, options.from), signal: AbortSignal.timeout(options.sendTimeoutMs) });
      } catch (err) {
        throw describeFailure(err);
      }
      if (info.rejected && info.rejected.length > 0) {
        throw mailerErrors.sendFailed(`SMTP server refused the recipient: ${info.response ?? ''}`.trim(), true);
      }
      return { response: info.response };
    },

    check() {
      if (!lastCheck || Date.now() - lastCheck.at > CHECK_CACHE_MS) {
        const result = transport.verify().then(() => undefined);
        result.catch(() => undefined);
        lastCheck = { at: Date.now(), result };
      }
      return lastCheck.result;
    },

    close(closeOptions) {
      transport.close(closeOptions);
    },
  };
}

interface NodemailerError extends Error {
  code?: string;
  responseCode?: number;
  permanent?: boolean;
}

/** A 5xx reply is a refusal for good; anything else (no connection, timeout, 4xx) may pass later. */
function describeFailure(err: unknown) {
  const e = err as NodemailerError;
  const permanent = e.permanent === true || (typeof e.responseCode === 'number' && e.responseCode >= 500 && e.responseCode < 600);
  const code = [e.code, e.responseCode].filter((part) => part !== undefined).join(' ');
  const reason = `SMTP ${code ? `${code}: ` : ''}${e.message ?? String(err)}`.slice(0, 500);
  return mailerErrors.sendFailed(reason, permanent, err);
}
