import { createHash } from 'node:crypto';
import { identityErrors } from '../errors';

export type Role = 'user' | 'admin';

/** A stored user as the domain sees it (no driver types). */
export interface UserRecord {
  id: string;
  email: string;
  name: string;
  picture: string;
  role: Role;
  /** Null for a user made by social sign-in: no password signs in until one is set. */
  passwordHash: string | null;
  /** True once the owner of the address has proven it (a verification link, or a provider that verified it). */
  emailVerified: boolean;
  /**
   * When the password was last set by a change or a reset (ms since the epoch; 0: never). Written
   * in the same update as the hash: a session remembers the value it was opened with, and one
   * opened with an older password is refused (refresh here, access tokens at the gateway).
   */
  credentialsEpoch: number;
  /**
   * True when the password (if any) is known to be the address owner's: set with a reset link
   * (which proves the address in the same step), or changed since by someone who knew such a
   * password. A sign-up's password is whoever signed up's, even once the address is verified.
   */
  passwordProven: boolean;
  createdAt: Date;
  /** Grows with every change of the stored user (absent or 0: not changed since versions exist); the ETag is made of it. */
  version?: number;
}

/** The user, or the 404 `user_not_found` (also for a malformed id). */
export async function getUser(deps: { users: { findById(id: string): Promise<UserRecord | null> } }, id: string): Promise<UserRecord> {
  const user = await deps.users.findById(id);
  if (!user) throw identityErrors.userNotFound();
  return user;
}

/**
 * Whether the account's owner has proven that its e-mail address is theirs. The one rule every
 * decision that trusts an address asks (sign-in under REQUIRE_VERIFIED_EMAIL, linking a social
 * identity by e-mail), so "verified" means one thing everywhere.
 */
export function isAddressProven(user: Pick<UserRecord, 'emailVerified'>): boolean {
  return user.emailVerified === true;
}

/**
 * Whether the account's password, if it has one, is known to be the address owner's (see
 * `passwordProven`). Linking a social identity asks it besides `isAddressProven`: proving the
 * address proves nothing about who chose the password, and a link would let that password keep
 * working in the owner's account.
 */
export function isPasswordProven(user: Pick<UserRecord, 'passwordHash' | 'passwordProven'>): boolean {
  return user.passwordHash === null || user.passwordProven === true;
}

/**
 * E-mails are compared and stored NFKC-normalised, trimmed and lower-cased: a compatibility
 * look-alike (`ａｄａ@example.com`, full-width) is the address it looks like, so it reaches that
 * account rather than making a second one a person can't tell apart.
 */
export function normalizeEmail(email: string): string {
  return email.normalize('NFKC').trim().toLowerCase();
}

/** The default name: what comes before the `@`. */
export function nameFromEmail(email: string): string {
  return email.slice(0, email.lastIndexOf('@')) || email;
}

const GRAVATAR_PREFIX = 'https://gravatar.com/avatar/';

/** The Gravatar identicon of an e-mail (md5 is Gravatar's scheme, not a security measure). */
export function gravatarUrl(email: string): string {
  return `${GRAVATAR_PREFIX}${createHash('md5').update(normalizeEmail(email)).digest('hex')}?d=identicon`;
}

/**
 * The picture after an e-mail change: a Gravatar picture follows the new e-mail, a picture the user
 * chose stays. (No endpoint changes e-mails yet; this keeps the rule in one place for when one does. Such an
 * endpoint must also set `emailVerified: false` and send a verification mail to the new address.)
 */
export function pictureAfterEmailChange(picture: string, newEmail: string): string {
  return picture.startsWith(GRAVATAR_PREFIX) ? gravatarUrl(newEmail) : picture;
}
