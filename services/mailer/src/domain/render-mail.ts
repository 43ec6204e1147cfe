import type { MailEnvelope, MailMessage, SecurityNoticeEvent } from './mail.messages';

/** The parts of a mail that depend on the message. `To:` is the bare address: no name chosen at sign-up goes into a header. */
export interface RenderedMail {
  to: { address: string };
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
    case 'mail.security-notice':
      return renderSecurityNotice(message);
  }
}

/** The greeting: the name when the sender gave one (a proven address, a plain name), else a neutral one. */
const greeting = (name: string | undefined) => (name ? `Hello ${name},` : 'Hello,');

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
  const text = [greeting(name), '', intro, '', link, '', `The link works once, for ${validity} (until ${until}).`, '', ignore, ''].join(
    '\n',
  );
  const html = [
    '<!doctype html>',
    `<html><head><meta charset="utf-8"><title>${subject}</title></head>`,
    '<body style="font-family: sans-serif; line-height: 1.5">',
    `<p>${escapeHtml(greeting(name))}</p>`,
    `<p>${intro}</p>`,
    `<p><a href="${escapeHtml(link)}">${escapeHtml(link)}</a></p>`,
    `<p>The link works once, for ${escapeHtml(validity)} (until ${escapeHtml(until)}).</p>`,
    `<p>${ignore}</p>`,
    '</body></html>',
    '',
  ].join('\n');
  return { to: { address: to }, subject, text, html };
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

/** Each notice's subject and sentences: our own fixed text. */
const NOTICES: Record<SecurityNoticeEvent, { subject: string; lines: string[] }> = {
  'mfa-enabled': {
    subject: 'Multi-factor sign-in was turned on',
    lines: ['Multi-factor sign-in was turned on for your account: signing in now needs a code from an authenticator app.'],
  },
  'mfa-disabled': {
    subject: 'Multi-factor sign-in was turned off',
    lines: ['Multi-factor sign-in was turned off for your account: signing in needs the password only.'],
  },
  'mfa-disabled-by-admin': {
    subject: 'An administrator turned off multi-factor sign-in',
    lines: [
      'An administrator turned off multi-factor sign-in for your account, and every session of it ended: signing in needs the password only.',
    ],
  },
  'recovery-codes-renewed': {
    subject: 'New recovery codes were made',
    lines: ['New recovery codes were made for your account; the earlier ones no longer work.'],
  },
  'mfa-locked': {
    subject: 'Many wrong sign-in codes for your account',
    lines: [
      'Someone who knows your password entered many wrong one-time codes for your account. Pending sign-ins were ended, and further codes must wait.',
      'Change your password now (or reset it), so that the password stops working for them.',
    ],
  },
};

export function renderSecurityNotice(message: MailEnvelope<'mail.security-notice'>): RenderedMail {
  const { to, event } = message.data;
  const { subject, lines } = NOTICES[event];
  const when = formatUtc(new Date(message.occurredAt));
  const unexpected = "If this wasn't you, reset your password now and turn multi-factor sign-in on again.";
  const body = [...lines, `When: ${when}.`, ...(event === 'mfa-locked' ? [] : [unexpected])];
  const text = ['Hello,', '', ...body.flatMap((line) => [line, '']), ''].join('\n');
  const html = [
    '<!doctype html>',
    `<html><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head>`,
    '<body style="font-family: sans-serif; line-height: 1.5">',
    '<p>Hello,</p>',
    ...body.map((line) => `<p>${escapeHtml(line)}</p>`),
    '</body></html>',
    '',
  ].join('\n');
  return { to: { address: to }, subject, text, html };
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
