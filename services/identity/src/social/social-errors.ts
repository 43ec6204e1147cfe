import { AppError, errors, problem } from '@restgate/shared';
import { identityErrorCatalogue as E } from '../errors';

/**
 * Social sign-in's errors (kept apart from errors.ts, which other features extend at the same time).
 * None carries the provider's token, its URL or the provider's own message.
 */
export const socialErrors = {
  credentialMissing: (): AppError =>
    errors.unauthorized("Send the provider's access token as access_token (query or body) or as Authorization: Bearer.", false),
  credentialMalformed: (): AppError => errors.unauthorized('The access token is malformed.', true),
  tokenRejected: (label: string): AppError => problem(E.provider_token_rejected, { detail: `${label} did not accept the access token.` }),
  /** The token is valid, but for another app: accepting it would let any app's token sign in. */
  tokenForAnotherApp: (label: string): AppError =>
    problem(E.provider_token_wrong_app, { detail: `The ${label} access token was not issued to this application.` }),
  unreachable(label: string, reason: string): AppError {
    return problem(E.provider_unreachable, {
      detail: `${label} could not be reached. Try again shortly.`,
      // Logged by the error handler; built here so no URL (which may hold the token) reaches the log.
      cause: new Error(`${label}: ${reason}`),
    });
  },
  failed: (label: string, reason: string): AppError =>
    problem(E.provider_failed, {
      detail: `${label} did not answer as expected. Try again shortly.`,
      cause: new Error(`${label}: ${reason}`),
    }),
  timeout: (label: string): AppError =>
    problem(E.provider_timeout, {
      detail: `${label} did not answer in time. Try again shortly.`,
      cause: new Error(`${label}: no answer before the deadline (SOCIAL_TIMEOUT_MS)`),
    }),
  emailMissing: (label: string): AppError =>
    problem(E.provider_email_missing, {
      detail: `${label} did not share a usable e-mail address for this account, and an account needs one. Allow access to your e-mail address (or add one to your ${label} account) and try again.`,
    }),
  emailUnverified: (label: string): AppError =>
    problem(E.provider_email_unverified, {
      detail: `${label} does not say that this account's e-mail address is verified, so it can neither be linked to an account nor start one. Verify the address with ${label} and try again.`,
    }),
  /**
   * The account with this e-mail never proved that it owns the address: whoever signed it up may
   * not be the address's owner, and linking would hand the provider's user an account someone
   * else controls (its password, its sessions). A password reset lifts this (it proves the
   * address and sets a password only its owner knows).
   */
  accountUnverified(label: string): AppError {
    return errors.conflict(
      'email',
      `An account with this e-mail exists, but its address was never verified, so ${label} cannot be linked to it. Reset its password with POST /password-resets (the mail goes to this address; any password someone else chose ends), then sign in with ${label} again. Verifying the address alone (POST /email-verifications) does not prove who chose its password.`,
      E.account_email_unverified,
    );
  },
  /**
   * The account's address is proven, but not its password: it was chosen at sign-up, possibly by
   * someone who registered the address before its owner did, and linking would let that password
   * keep signing in to the account the owner now uses. A password reset lifts this.
   */
  accountPasswordUnproven(label: string): AppError {
    return errors.conflict(
      'email',
      `An account with this e-mail exists with a password that was chosen at sign-up, which proves nothing about who chose it (anyone can sign up an address), so ${label} cannot be linked to it yet. Reset its password with POST /password-resets (the mail goes to this address; the old password and its sessions end), then sign in with ${label} again.`,
      E.account_password_unproven,
    );
  },
  alreadyLinked: (label: string): AppError =>
    errors.conflict('email', `The account with this e-mail is already linked to another ${label} identity.`, E.provider_already_linked),
};
