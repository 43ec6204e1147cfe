import type { MailEnvelope, MailMessage } from './mail.messages';

/** The parts of a mail that depend on the message. */
export interface RenderedMail {
  to: { name: string; address: string };
  subject: string;
  text: string;
  html: string;
}

/** Renders any mail message; a new message type adds a case here (the compiler asks for it). */
export function renderMail(message: MailMessage): RenderedMail {
  switch (message.type) {
    case 'mail.password-reset':
      return renderPasswordReset(message);
    case 'mail.email-verification':
      return renderEmailVerification(message);
  }
}

/**
 * What a single-use-link mail says (our own fixed text, written into the HTML as it is); the layout,
 * the link and its validity are the same for every kind.
 */
interface LinkMailWording {
  subject: string;
  /** The sentence before the link. */
  intro: string;
  /** The sentence for someone who did not ask. */
  ignore: string;
}

function renderLinkMail(
  message: MailEnvelope<'mail.password-reset' | 'mail.email-verification'>,
  { subject, intro, ignore }: LinkMailWording,
): RenderedMail {
  const { to, name, link, expiresAt } = message.data;
  const validity = describeDuration(Date.parse(expiresAt) - Date.parse(message.occurredAt));
  const until = formatUtc(new Date(expiresAt));
  const text = [`Hello ${name},`, '', intro, '', link, '', `The link works once, for ${validity} (until ${until}).`, '', ignore, ''].join('\n');
  const html = [
    '<!doctype html>',
    `<html><head><meta charset="utf-8"><title>${subject}</title></head>`,
    '<body style="font-family: sans-serif; line-height: 1.5">',
    `<p>Hello ${escapeHtml(name)},</p>`,
    `<p>${intro}</p>`,
    `<p><a href="${escapeHtml(link)}">${escapeHtml(link)}</a></p>`,
    `<p>The link works once, for ${escapeHtml(validity)} (until ${escapeHtml(until)}).</p>`,
    `<p>${ignore}</p>`,
    '</body></html>',
    '',
  ].join('\n');
  return { to: { name, address: to }, subject, text, html };
}

export function renderPasswordReset(message: MailEnvelope<'mail.password-reset'>): RenderedMail {
  return renderLinkMail(message, {
    subject: 'Reset your password',
    intro: 'Someone asked to reset the password of your account. To choose a new password, open this link:',
    ignore: "If you didn't ask for this, ignore this e-mail: your password stays as it is.",
  });
}

export function renderEmailVerification(message: MailEnvelope<'mail.email-verification'>): RenderedMail {
  return renderLinkMail(message, {
    subject: 'Confirm your e-mail address',
    intro: 'An account was created with this e-mail address. To confirm that the address is yours, open this link:',
    ignore:
      "If you didn't sign up, don't confirm: someone else chose the account's password. Ignore this e-mail (the address stays unconfirmed), or ask for a password reset for this address to take the account over.",
  });
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for HTML content and quoted attribute values. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!);
}

/** 3 600 000 → "one hour"; 1 800 000 → "30 minutes"; 7 200 000 → "2 hours". */
export function describeDuration(ms: number): string {
  const minutes = Math.max(1, Math.round(ms / 60_000));
  if (minutes % 60 === 0) return minutes === 60 ? 'one hour' : `${minutes / 60} hours`;
  return minutes === 1 ? 'one minute' : `${minutes} minutes`;
}

/** "Sun, 22 Nov 2026 06:55 UTC": a time anyone can read, in the one zone we know they share. */
export function formatUtc(date: Date): string {
  return date.toUTCString().replace(/:\d\d GMT$/, ' UTC');
}
