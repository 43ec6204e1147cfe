import type { Logger } from '@restgate/shared';
import type { ListingPage, ListingQuery } from '@restgate/shared/data';
import type { PasswordHasher } from './password-hasher.port';
import type { SecurityNoticeDeps } from './security-notice';
import type { RevocationRecorder, SessionRepository, SessionSettings } from './sessions';
import type { SignInBackoff } from './sign-in-backoff';
import type { TokenIssuer } from './token-issuer.port';
import type { UserRecord } from './user';
import type { AuditTrail } from '../audit/audit-trail';

/** A user's identities at other providers: provider name → that provider's id of the person (opaque to the core). */
export type ProviderLinks = Partial<Record<string, string>>;
/** A new user's password is never proven (whoever signs up chose it): the repository records that. */
export type NewUser = Omit<UserRecord, 'id' | 'createdAt' | 'credentialsEpoch' | 'passwordProven'> & { providers?: ProviderLinks };
export type UserSummary = Omit<UserRecord, 'passwordHash' | 'passwordProven'>;
export type UserPage = Pick<ListingQuery, 'q' | 'sort' | 'page' | 'limit' | 'after' | 'count' | 'filters'>;
/** What an update may set. A new password hash never goes without its credentials epoch. */
export type UserChanges = Partial<Pick<UserRecord, 'name' | 'picture' | 'emailVerified' | 'role'>> &
  (
    | { passwordHash: string; credentialsEpoch: number; passwordProven?: true }
    | { passwordHash?: never; credentialsEpoch?: never; passwordProven?: never }
  );

/**
 * Where users are kept, as the use cases need it. The use cases own this interface and user.repository.ts
 * implements it, so use cases never see a driver and can be read without the database code.
 * Ids go in and out as strings; a malformed id finds nothing.
 */
export interface UserRepository {
  /** Inserts a user; a taken e-mail surfaces as a duplicate-key error (`isDuplicateKeyError`). */
  insert(user: NewUser): Promise<UserRecord>;
  findById(id: string): Promise<UserRecord | null>;
  findByEmail(email: string): Promise<UserRecord | null>;
  /** The user linked to this provider identity, or null. */
  findByProvider(provider: string, providerId: string): Promise<UserRecord | null>;
  /**
   * Links a provider identity to a user that has no identity of that provider yet. Null when the
   * user is gone, is already linked to another identity of that provider, or the identity was just
   * linked to someone else (a lost race: the caller looks again).
   */
  linkProvider(userId: string, provider: string, providerId: string): Promise<UserRecord | null>;
  /**
   * Sets the given fields and the next version, in one write; null when there is no such user, or
   * (with `version`) it is no longer at that version: the check and the write are one operation.
   * A password written with `passwordProven: true` (a reset link: the address proven in the same
   * step) is recorded as the owner's; a password written without it keeps the standing of the one
   * it replaces (its writer knew that one).
   */
  update(id: string, changes: UserChanges, version?: number): Promise<UserRecord | null>;
  /**
   * Replaces the password hash `current` with `next`, the same password at other costs, only if
   * `current` is still the stored one (a change or reset meanwhile stays). Nothing else moves: not
   * the credentials epoch (no session ends), not `updatedAt` (the user is the same). True when
   * it was replaced.
   */
  rehashPassword(id: string, current: string, next: string): Promise<boolean>;
  /** False when there was nothing to delete (or, with `version`, not at that version). */
  delete(id: string, version?: number): Promise<boolean>;
  /** One page (`q` over name and e-mail, the filters), the total unless not counted, the next cursor; no password hashes. */
  list(page: UserPage): Promise<ListingPage & { rows: UserSummary[] }>;
}

/**
 * Queues a verification link to a user's address; false when no mail can be built for it. A port
 * (wired to email-verification.ts) so that sign-up needs nothing else of verification.
 */
export type VerificationMailer = (
  user: Pick<UserRecord, 'id' | 'email' | 'name' | 'emailVerified'>,
  requestId: string,
  log?: Logger,
) => Promise<boolean>;

/** Sends nothing: where no verification mail is wanted (tests that count other mails). */
export const noVerificationMail: VerificationMailer = async () => false;

/**
 * The second step of a sign-in, as the core sees it: a feature (mfa/) fills this port; the core
 * never imports it. Sign-in asks whether the user needs a second step and, if so, lets the
 * feature open it; the core tells it when a user's credentials or sessions end.
 */
export interface SecondFactorPort {
  /** Whether signing in as this user takes a second step (shown as `mfa.totp` on GET /users/me). */
  isOn(userId: string): Promise<boolean>;
  /** Opens the second step instead of a session: throws the 401 `mfa_required` that carries its token. */
  challenge(user: UserRecord, amr: string[], userAgent?: string): Promise<never>;
  /** The user's password changed or was reset, their sessions were all ended, or they were deleted: pending second steps end. */
  endPending(userId: string): Promise<void>;
}

/** What the core's use cases work with: its stores and its ports, nothing of a feature. */
export interface AccountsDeps extends SecurityNoticeDeps {
  users: UserRepository;
  hasher: PasswordHasher;
  tokens: TokenIssuer;
  /** The password back-off. */
  backoff: SignInBackoff;
  sessions: SessionRepository;
  /** Tells the gateways that sessions ended (Redis). */
  revocations: RevocationRecorder;
  sessionSettings: SessionSettings;
  /** REQUIRE_VERIFIED_EMAIL: sign-in needs a proven address. */
  requireVerifiedEmail: boolean;
  /** Sign-up sends the new address a verification link. */
  sendVerificationMail: VerificationMailer;
  /** The second step of a sign-in (mfa/ fills it). */
  secondFactor: SecondFactorPort;
  /** Ends every password-reset token of a user (a password change makes them moot). */
  resetTokens: { deleteAllOfUser(userId: string): Promise<number> };
  /** Who may sign up as an admin, or be made one (ADMIN_SIGN_UP). */
  adminSignUp: AdminSignUp;
  /** The audit log's auth events (the change relay publishes them). */
  audit: AuditTrail;
}

/** ADMIN_SIGN_UP: `master` — the master key or an admin may create admins; `admin` — only an admin's token; `off` — no one. */
export type AdminSignUp = 'master' | 'admin' | 'off';
