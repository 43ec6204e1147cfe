import { createHash, randomBytes } from 'node:crypto';
import { hasControlCharacters } from '@restgate/shared/amqp';
import { identityErrors } from '../errors';
import type { UserRepository } from './identity-deps';
import type { PasswordHasher } from './password-hasher';
import type { PasswordResetMail } from './password-reset-mail';
import type { ResetMailCap } from './reset-mail-cap';
import type { SessionDeps } from './sessions';
import { nameFromEmail, type UserRecord } from './user';

/** A stored reset, as the use cases see it. */
export interface PasswordResetRecord {
  id: string;
  userId: string;
  expiresAt: Date;
  createdAt: Date;
}

/**
 * Where resets are kept, as the use cases need it (the domain owns this interface; `data/`
 * implements it). A reset and its mail request are one write: the request is the outbox entry
 * the relay publishes, so neither exists without the other.
 */
export interface PasswordResetRepository {
  /**
   * Ends the user's earlier resets and stores this one with its mail request (one insert): of
   * racing calls for one user, one reset is left. False when a racing call's reset is the one left.
   */
  replaceWithMail(reset: { userId: string; tokenHash: string; expiresAt: Date; envelope: PasswordResetMail }): Promise<boolean>;
  /** The same write for an unknown e-mail: a row that no token opens and that sends nothing. */
  insertStandIn(reset: { tokenHash: string; expiresAt: Date }): Promise<void>;
  /** The reset with this token hash, if it belongs to a user and has not expired. */
  findActive(tokenHash: string, now: Date): Promise<PasswordResetRecord | null>;
  /** Uses up a reset: true for exactly one caller however many race. */
  consume(id: string, now: Date): Promise<boolean>;
  /** Ends every reset of the user (their pending mails go with them). */
  deleteAllOfUser(userId: string): Promise<number>;
}

export interface PasswordResetSettings {
  /** Origins (`new URL(x).origin` form) a requested link may have. */
  linkOrigins: string[];
  /** The page the link points at when no allowed link was asked for. */
  defaultPage: string;
  ttlSeconds: number;
}

export interface PasswordResetDeps {
  users: UserRepository;
  resets: PasswordResetRepository;
  hasher: PasswordHasher;
  /** A reset ends every session of the user. */
  sessions: Pick<SessionDeps, 'sessions' | 'revocations'>;
  settings: PasswordResetSettings;
  /** Called after a mail request is written, so the relay publishes it now rather than at its next poll. */
  mailQueued: () => void;
  /** Reset mails per e-mail address (absent: no cap). */
  mailCap?: ResetMailCap;
}

const TOKEN_BYTES = 32;
/** 32 bytes in base64url, unpadded. */
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** A new token (256 random bits, base64url) and the hash that is all the database keeps. */
export function newResetToken(): { token: string; tokenHash: string } {
  const token = randomBytes(TOKEN_BYTES).toString('base64url');
  return { token, tokenHash: hashResetToken(token) };
}

export function hashResetToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/**
 * The live reset a token opens. Unknown, used, expired, malformed: one 404 for all, and a
 * malformed token costs no query.
 */
export async function assertActiveReset(deps: Pick<PasswordResetDeps, 'resets'>, token: string): Promise<PasswordResetRecord> {
  const reset = TOKEN_PATTERN.test(token) ? await deps.resets.findActive(hashResetToken(token), new Date()) : null;
  if (!reset) throw identityErrors.resetNotFound();
  return reset;
}

/** The user a live reset belongs to; a user deleted since is the same 404 as a dead token. */
export async function assertResetUser(deps: Pick<PasswordResetDeps, 'users'>, reset: PasswordResetRecord): Promise<UserRecord> {
  const user = await deps.users.findById(reset.userId);
  if (!user) throw identityErrors.resetNotFound();
  return user;
}

/** The name for the greeting: without control characters (the mail schema refuses them), never empty. */
export function mailName(user: Pick<UserRecord, 'name' | 'email'>): string {
  const clean = [...user.name]
    .map((ch) => (hasControlCharacters(ch) ? ' ' : ch))
    .join('')
    .trim()
    .slice(0, 200);
  return clean || nameFromEmail(user.email);
}
