import { isDuplicateKeyError } from '@restgate/shared/data';
import Joi from 'joi';
import { identityErrors } from '../errors';
import type { AccountsDeps } from '../accounts/accounts-deps';
import { actorOfUser, userSubject } from '../audit/audit-trail';
import { openSessionOrSecondStep, recordSignInFailure } from '../accounts/sign-in';
import type { SignedIn } from '../accounts/sessions';
import { socialErrors } from './social-errors';
import type { ProviderProfile, SocialProvider } from './social-provider';
import { gravatarUrl, isAddressProven, isPasswordProven, nameFromEmail, normalizeEmail, type UserRecord } from '../accounts/user';

// The same limits POST /users puts on what a client sends.
const emailSchema = Joi.string()
  .max(254)
  .email({ tlds: { allow: false } });
const pictureSchema = Joi.string()
  .max(2048)
  .uri({ scheme: ['http', 'https'] });
const NAME_MAX = 128;

/**
 * Signs in with a provider's access token: the provider's profile → the user (linked, found by a
 * verified e-mail, or new) → a session, exactly what POST /auth answers (with MFA on, its 401
 * `mfa_required` and `mfaToken`).
 */
export async function socialSignIn(
  deps: AccountsDeps,
  provider: SocialProvider,
  accessToken: string,
  timeoutMs: number,
  userAgent?: string,
): Promise<SignedIn> {
  let user: UserRecord;
  try {
    const profile = await provider.fetchProfile(accessToken, AbortSignal.timeout(timeoutMs));
    user = await userForProfile(deps, provider, profile);
  } catch (err) {
    await recordSignInFailure(deps, err, null, provider.name);
    throw err;
  }
  // `amr`: the provider's name (RFC 8176 has no value for a federated sign-in).
  return openSessionOrSecondStep(deps, user, [provider.name], userAgent);
}

/**
 * The linked user; else the user with the provider-verified e-mail, now linked (only when that
 * account has proven its address too: otherwise 409 `account_email_unverified`); else a new user
 * without a password. An unverified e-mail is never used: linking by it would hand an account to
 * whoever typed that address at the provider, and creating an account with it would let them
 * claim the address before its owner signs up. Nor is an account whose own e-mail nobody ever
 * verified linked: anyone could have registered it, with a password they would keep, under the
 * address of someone who signs in with a provider later. Nor is one whose password was chosen at
 * sign-up (verifying the address proves nothing about who chose it): 409
 * `account_password_unproven`. In both cases its owner resets the password first (which proves
 * the address and ends the stranger's password and sessions), and then the link is made. A second
 * pass covers a concurrent first sign-in of the same person that wrote between our read and our write.
 */
async function userForProfile(
  deps: Pick<AccountsDeps, 'users' | 'audit'>,
  provider: SocialProvider,
  profile: ProviderProfile,
): Promise<UserRecord> {
  const { users } = deps;
  for (let attempt = 1; ; attempt++) {
    const lastAttempt = attempt === 2;
    const linked = await users.findByProvider(provider.name, profile.id);
    if (linked) return linked;
    const email = usableEmail(provider, profile);
    const existing = await users.findByEmail(email);
    if (existing) {
      // One rule for trusting an address, one for trusting its password (accounts/user.ts).
      if (!isAddressProven(existing)) throw socialErrors.accountUnverified(provider.label);
      if (!isPasswordProven(existing)) throw socialErrors.accountPasswordUnproven(provider.label);
      const updated = await users.linkProvider(existing.id, provider.name, profile.id);
      if (updated) {
        await deps.audit.record('auth.social.linked', {
          outcome: 'success',
          actor: actorOfUser(updated),
          subject: userSubject(updated.id),
          details: { provider: provider.name },
        });
        return updated;
      }
      if (lastAttempt) throw socialErrors.alreadyLinked(provider.label);
      continue;
    }
    try {
      // Name and picture are taken once, here: later sign-ins never overwrite the user's own edits.
      const created = await users.insert({
        email,
        name: profile.name?.trim().slice(0, NAME_MAX) || nameFromEmail(email),
        picture: validPicture(profile.picture) ?? gravatarUrl(email),
        role: 'user',
        passwordHash: null,
        // Only a provider-verified e-mail gets this far (usableEmail).
        emailVerified: true,
        providers: { [provider.name]: profile.id },
      });
      await deps.audit.record('auth.social.linked', {
        outcome: 'success',
        actor: actorOfUser(created),
        subject: userSubject(created.id),
        details: { provider: provider.name, newAccount: true },
      });
      return created;
    } catch (err) {
      if (!isDuplicateKeyError(err)) throw err;
      if (lastAttempt) throw identityErrors.emailTaken();
    }
  }
}

function usableEmail(provider: SocialProvider, profile: ProviderProfile): string {
  const email = profile.email === undefined ? undefined : normalizeEmail(profile.email);
  if (!email || emailSchema.validate(email).error) throw socialErrors.emailMissing(provider.label);
  if (!profile.emailVerified) throw socialErrors.emailUnverified(provider.label);
  return email;
}

function validPicture(picture: string | undefined): string | undefined {
  return picture && !pictureSchema.validate(picture).error ? picture : undefined;
}
