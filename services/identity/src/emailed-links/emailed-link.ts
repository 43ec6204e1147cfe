import { createHash, randomBytes } from 'node:crypto';
import type { AppError, Logger } from '@restgate/shared';
import { hasControlCharacters } from '@restgate/shared/messaging';
import type { UserRepository } from '../accounts/accounts-deps';
import { linkMail, type LinkMail, type LinkMailType } from './link-mail';
import { normalizeEmail, type UserRecord } from '../accounts/user';
import type { AuditTrail } from '../audit/audit-trail';

/**
 * An e-mailed one-time link: a token mailed to a user's address, stored only as its hash, that
 * works once (consumed by a delete), for a limited time, and of which a user has one live at most.
 * Password resets and e-mail verifications are two purposes of it; a purpose is its mail type, its
 * 404, and whether the link proves only the address it was sent to.
 */
export interface LinkPurpose {
  /** The outbox message (routing key) that carries the link: the mailer's contract. */
  mailType: LinkMailType;
  /** One answer for an unknown, used, expired or malformed token. */
  notFound(): AppError;
  /** The link stands for the address it went to: a user whose address changed since is the 404. */
  bindsAddress: boolean;
}

/** A stored link, as the use cases see it. */
export interface LinkRecord {
  id: string;
  userId: string;
  /** The address the link was sent to (for purposes that bind it). */
  address: string | null;
  expiresAt: Date;
}

/**
 * Where the links of one purpose are kept (the use cases own this interface; link-token.repository.ts implements it).
 * A link and its mail request are one write: the document is the outbox entry the relay
 * publishes, so neither exists without the other.
 */
export interface LinkTokenRepository {
  /**
   * Ends the user's earlier links and stores this one with its mail request: of racing calls for
   * one user, one link is left. False when a racing call's link is the one left.
   */
  replaceWithMail(row: { userId: string; address: string; tokenHash: string; expiresAt: Date; envelope: LinkMail }): Promise<boolean>;
  /** The same write for an address that gets no mail: a row that no token opens and that sends nothing. */
  insertStandIn(row: { tokenHash: string; expiresAt: Date }): Promise<void>;
  /** The link with this token hash, if it belongs to a user and has not expired. */
  findActive(tokenHash: string, now: Date): Promise<LinkRecord | null>;
  /** Uses up a link: true for exactly one caller however many race. */
  consume(id: string, now: Date): Promise<boolean>;
  /** Ends every link of the user (their pending mails go with them). */
  deleteAllOfUser(userId: string): Promise<number>;
}

/** Caps the mails one address receives; past the cap a request is answered alike, and no mail goes. */
export interface LinkMailCap {
  /** True while `email` may get another mail in this window (counts this one). */
  allow(email: string): Promise<boolean>;
}

/** What one purpose's use cases work with. */
export interface EmailedLinkDeps {
  purpose: LinkPurpose;
  users: UserRepository;
  links: LinkTokenRepository;
  ttlSeconds: number;
  /** Mails per e-mail address (the abuse limits; a cap that always allows where they are off). */
  mailCap: LinkMailCap;
  /** Called after a mail request is written, so the relay publishes it now rather than at its next poll. */
  mailQueued: () => void;
  log: Logger;
  /** Resets requested and completed, addresses verified: recorded for the audit log. */
  audit: AuditTrail;
}

const TOKEN_BYTES = 32;
/** 32 bytes in base64url, unpadded. */
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** A new token (256 random bits, base64url) and the hash that is all the database keeps. */
export function newLinkToken(): { token: string; tokenHash: string } {
  const token = randomBytes(TOKEN_BYTES).toString('base64url');
  return { token, tokenHash: hashLinkToken(token) };
}

export function hashLinkToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/**
 * The live link a token opens, and its user. Unknown, used, expired, malformed, a user deleted
 * since (or, for a purpose that binds the address, an address changed since): one 404 for all,
 * and a malformed token costs no query.
 */
export async function assertActiveLink(
  deps: Pick<EmailedLinkDeps, 'purpose' | 'links' | 'users'>,
  token: string,
): Promise<{ link: LinkRecord; user: UserRecord }> {
  const link = TOKEN_PATTERN.test(token) ? await deps.links.findActive(hashLinkToken(token), new Date()) : null;
  const user = link && (await deps.users.findById(link.userId));
  if (!link || !user || (deps.purpose.bindsAddress && user.email !== link.address)) throw deps.purpose.notFound();
  return { link, user };
}

/** The user a live link belongs to, for the page or the JSON the link in the mail opens (both rendered by the routes). */
export async function openLink(deps: Pick<EmailedLinkDeps, 'purpose' | 'links' | 'users'>, token: string): Promise<UserRecord> {
  return (await assertActiveLink(deps, token)).user;
}

/** Uses up the link: of any number of concurrent calls one wins, the others get the 404 of a used token. */
export async function consumeLink(deps: Pick<EmailedLinkDeps, 'purpose' | 'links'>, link: LinkRecord): Promise<void> {
  if (!(await deps.links.consume(link.id, new Date()))) throw deps.purpose.notFound();
}

/**
 * Queues a link to the user's address: a fresh token and its mail request in one insert (the
 * outbox), replacing the user's earlier links, so one link works, the latest, even when calls
 * race. False when no mail can be built for the stored address (logged): a provider's odd e-mail,
 * say, and an error answer would tell the caller that the e-mail is registered.
 */
export async function queueLinkMail(
  deps: EmailedLinkDeps,
  user: Pick<UserRecord, 'id' | 'email' | 'name' | 'emailVerified'>,
  page: (token: string) => string,
  requestId: string,
  log: Logger = deps.log,
): Promise<boolean> {
  const { token, tokenHash } = newLinkToken();
  const expiresAt = new Date(Date.now() + deps.ttlSeconds * 1000);
  let envelope;
  try {
    const name = mailName(user);
    const data = { to: user.email, ...(name === undefined ? {} : { name }), link: page(token), expiresAt: expiresAt.toISOString() };
    envelope = linkMail(deps.purpose.mailType, data, requestId);
  } catch (err) {
    log.error({ err, userId: user.id }, `${deps.purpose.mailType} cannot be built for this user; nothing sent`);
    return false;
  }
  // A call that loses a race to another for the same user leaves that one's link, and its mail.
  await deps.links.replaceWithMail({ userId: user.id, address: user.email, tokenHash, expiresAt, envelope });
  deps.mailQueued();
  return true;
}

/**
 * A request for a link by e-mail address. The answer must not tell whether the address is
 * registered (or, with `eligible`, whether it qualifies), so the others get the same work (a
 * lookup, a fresh token, one insert of a stand-in row that no token opens and that sends nothing)
 * and the same outcome: nothing thrown, and what it returns (the user found, whether a mail went)
 * is for the audit log only. Past the per-address cap nothing is written and nothing sent, alike.
 */
export async function requestLink(
  deps: EmailedLinkDeps,
  input: { email: string; requestId: string; page: (token: string) => string; eligible?: (user: UserRecord) => boolean },
  log: Logger = deps.log,
): Promise<{ user: UserRecord | null; mailed: boolean }> {
  const email = normalizeEmail(input.email);
  const user = await deps.users.findByEmail(email);
  if (!(await deps.mailCap.allow(email))) {
    log.info({ userId: user?.id }, `${deps.purpose.mailType} cap reached for this address; nothing sent`);
    return { user, mailed: false };
  }
  const eligible = user && (input.eligible?.(user) ?? true);
  if (eligible && (await queueLinkMail(deps, user, input.page, input.requestId, log))) return { user, mailed: true };
  await deps.links.insertStandIn({ tokenHash: newLinkToken().tokenHash, expiresAt: new Date(Date.now() + deps.ttlSeconds * 1000) });
  return { user, mailed: false };
}

/** A name a mail may greet with: letters (any script) with spaces, dots, apostrophes and hyphens; no digits, links or symbols. */
const GREETABLE_NAME = /^\p{L}[\p{L}\p{M} .'\u2019-]{0,59}$/u;

/**
 * The name a mail greets with, if any. Whoever signs up chooses the name, and may sign up someone
 * else's address: a mail to an address not proven yet greets neutrally, so no stranger's text
 * reaches it under the service's name; and a name that is more than a name (digits, a link,
 * symbols, past 60 characters) is never put in a mail. The name never goes into `To:`.
 */
export function mailName(user: Pick<UserRecord, 'name' | 'emailVerified'>): string | undefined {
  if (!user.emailVerified) return undefined;
  const name = user.name.trim();
  return GREETABLE_NAME.test(name) && !hasControlCharacters(name) ? name : undefined;
}

/** `<page>/<token>`. */
export function linkTo(page: string, token: string): string {
  return `${page.replace(/\/+$/, '')}/${token}`;
}
