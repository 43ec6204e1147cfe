import { randomUUID } from 'node:crypto';
import Joi from 'joi';
import { createEnvelope, type MessageEnvelope } from '@restgate/shared/messaging';
import { mailRecipientSchema } from './mail-address';
import type { UserRecord } from './user';

/**
 * What a security notice tells the owner of an account: identity's own view of the mailer's
 * `mail.security-notice` (the mailer owns the contract and its wording). It carries no name and
 * no link: it is sent whether or not the address is proven, so nothing in it is chosen by
 * whoever signed up.
 */
export const SECURITY_NOTICE_EVENTS = [
  'mfa-enabled',
  'mfa-disabled',
  'mfa-disabled-by-admin',
  'recovery-codes-renewed',
  'mfa-locked',
] as const;
export type SecurityNoticeEvent = (typeof SECURITY_NOTICE_EVENTS)[number];

export interface SecurityNoticeData {
  /** One bare address. */
  to: string;
  event: SecurityNoticeEvent;
}

export type SecurityNoticeMail = MessageEnvelope<'mail.security-notice', SecurityNoticeData>;

export const securityNoticeSchema = Joi.object<SecurityNoticeData>({
  to: mailRecipientSchema.required(),
  event: Joi.string()
    .valid(...SECURITY_NOTICE_EVENTS)
    .required(),
});

/** Where notices wait for the relay: each one is its own outbox entry. */
export interface SecurityNoticeOutbox {
  insert(userId: string, envelope: SecurityNoticeMail): Promise<void>;
}

export interface SecurityNoticeDeps {
  notices: SecurityNoticeOutbox;
  /** Wakes the outbox relay, so the mail goes now rather than at its next poll. */
  noticeQueued?: () => void;
}

/** Queues a notice to the user's address (the mail request is the outbox entry). */
export async function notifyUser(
  deps: SecurityNoticeDeps,
  user: Pick<UserRecord, 'id' | 'email'>,
  event: SecurityNoticeEvent,
  requestId: string = randomUUID(),
): Promise<void> {
  const envelope = createEnvelope('mail.security-notice', { to: user.email, event }, requestId, securityNoticeSchema);
  await deps.notices.insert(user.id, envelope);
  deps.noticeQueued?.();
}
