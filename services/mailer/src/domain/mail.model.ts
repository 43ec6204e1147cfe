/** One rendered mail, ready for a transport. */
export interface OutgoingMail {
  /** The message id; also the file name in outbox mode and part of the Message-ID header. */
  id: string;
  to: { address: string };
  subject: string;
  text: string;
  html: string;
}

/** What a transport reports about a mail it took. */
export interface SentMail {
  /** The server's final reply (SMTP mode). */
  response?: string;
  /** Where the .eml was written (outbox mode). */
  location?: string;
  /**
   * Outbox mode only, for the log line that tells a developer where their mail is: the .eml is
   * quoted-printable, so a link read from the file with `cat` is split across lines.
   * Never stored in the delivery log (a reset link is a credential).
   */
  preview?: { to: string; subject: string; links: string[] };
}

/** Where mail goes: an SMTP server, or a folder of .eml files. */
export interface MailSender {
  readonly kind: 'smtp' | 'outbox';
  /** Throws a `mailerErrors.sendFailed` error when the mail was not taken. */
  send(mail: OutgoingMail): Promise<SentMail>;
  /** Throws when the transport cannot take mail (server unreachable, folder not writable). */
  check(): Promise<void>;
  /** Stops the transport; `force` also abandons sends in progress (they fail). */
  close(options?: { force?: boolean }): void;
}

export type ClaimResult =
  /** Ours to send; hand `token` back to `markSent` or `release`. */
  | { outcome: 'claimed'; token: string }
  /** Delivered before: acknowledge without sending. */
  | { outcome: 'sent' }
  /** Another copy is being sent right now (and its lease has not run out). */
  | { outcome: 'busy' };

/** The delivery log: at most one sender per message id at a time, and a record of what went out. */
export interface DeliveryLog {
  claim(input: { id: string; type: string; requestId: string; leaseMs: number }): Promise<ClaimResult>;
  markSent(id: string, sent: SentMail): Promise<void>;
  release(id: string, token: string, error: string): Promise<void>;
}
