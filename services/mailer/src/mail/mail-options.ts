import type { SendMailOptions } from 'nodemailer';
import type { OutgoingMail } from '../domain/mail.model';

/** nodemailer's view of one mail: the same headers in SMTP and outbox mode. */
export function toMailOptions(mail: OutgoingMail, from: string): SendMailOptions {
  return {
    from,
    // The bare address: a display name would be text chosen by whoever signed up.
    to: mail.to.address,
    subject: mail.subject,
    text: mail.text,
    html: mail.html,
    // Derived from the message id, so a duplicate that slips through is recognisable downstream.
    messageId: `<${mail.id}@${senderDomain(from)}>`,
    // The mail is built from our own strings only: never read files or URLs while composing it.
    disableFileAccess: true,
    disableUrlAccess: true,
  };
}

function senderDomain(from: string): string {
  return /@([A-Za-z0-9.-]+)>?\s*$/.exec(from)?.[1] ?? 'restgate.local';
}
