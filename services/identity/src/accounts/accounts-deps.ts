import type { MfaCrypto, MfaRepository } from '../mfa/mfa-ports';
import type { SecondFactorGuard } from '../mfa/second-factor-guard';
import type { SecurityNoticeDeps } from './security-notice';
import type { Logger } from '@restgate/shared';
import type { ListingPage, ListingQuery } from '@restgate/shared/data';
import type { PasswordHasher } from './password-hasher.port';
import type { SocialProviderName } from '../social/social-provider';
import type { RevocationRecorder, SessionRepository, SessionSettings } from './sessions';
import type { SignInBackoff } from './sign-in-backoff';
import type { TokenIssuer } from './token-issuer.port';
import type { UserRecord } from './user';

/** A user's social identities: provider name → the provider's id of that person. */
export type ProviderLinks = Partial<Record<SocialProviderName, string>>;
/** A new user's password is never proven (whoever signs up chose it): the repository records that. */
export type NewUser = Omit<UserRecord, 'id' | 'createdAt' | 'credentialsEpoch' | 'passwordProven'> & { providers?: ProviderLinks };
export type UserSummary = Omit<UserRecord, 'passwordHash' | 'passwordProven'>;
export type UserPage = Pick<ListingQuery, 'q' | 'sort' | 'page' | 'limit' | 'after' | 'count' | 'filters'>;
/** What an update may set. A new password hash never goes without its credentials epoch. */
export type UserChanges = Partial<Pick<UserRecord, 'name' | 'picture' | 'emailVerified'>> &
  (
    | { passwordHash: string; credentialsEpoch: number; passwordProven?: true }
    | { passwordHash?: never; credentialsEpoch?: never; passwordProven?: never }
  );

/**
 * Where users are kept, as the use cases need it. The domain owns this interface and `data/`
 * implements it, so use cases never see a driver and can be read without the database code.
 * Ids go in and out as strings; a malformed id finds nothing.
 */
export interface UserRepository {
  /** Inserts a user; a taken e-mail surfaces as a duplicate-key error (`isDuplicateKeyError`). */
  insert(user: NewUser): Promise<UserRecord>;
  findById(id: string): Promise<UserRecord | null>;
  findByEmail(email: string): Promise<UserRecord | null>;
  /** The user linked to this provider identity, or null. */
  findByProvider(provider: SocialProviderName, providerId: string): Promise<UserRecord | null>;
  /**
   * Links a provider identity to a user that has no identity of that provider yet. Null when the
   * user is gone, is already linked to another identity of that provider, or the identity was just
   * linked to someone else (a lost race: the caller looks again).
   */
  linkProvider(userId: string, provider: SocialProviderName, providerId: string): Promise<UserRecord | null>;
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

/** What the use cases work with. */
export interface IdentityDeps extends SecurityNoticeDeps {
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
  /** Second factors and sign-ins waiting for one (always there: sign-in must see a factor even without the key). */
  mfa: MfaRepository;
  /** The bounds on guessing second factors (per challenge, per account). */
  secondFactors: SecondFactorGuard;
  /** TOTP and the MFA_ENCRYPTION_KEY; absent when the key is not set (the MFA routes are not served). */
  mfaCrypto?: MfaCrypto;
  /** Ends every password-reset token of a user (a password change makes them moot). */
  resetTokens: { deleteAllOfUser(userId: string): Promise<number> };
  /** Who may sign up as an admin (ADMIN_SIGN_UP). */
  adminSignUp: AdminSignUp;
}

/** ADMIN_SIGN_UP: `master` — the master key or an admin may create admins; `admin` — only an admin's token; `off` — no one. */
export type AdminSignUp = 'master' | 'admin' | 'off';
