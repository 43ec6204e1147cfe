/**
 * What the route specs of identity's features share: the options their schemas follow, and the
 * error answers several of them list (catalogue entries: the API docs describe each code with its text).
 */
import { identityCodes as E } from '../errors';

export interface IdentityApiOptions {
  /** PASSWORD_MIN_LENGTH: the password rules in the schemas (and docs) follow it. */
  passwordMinLength: number;
}

/** PASSWORD_MIN_LENGTH's default, for the specs the gateway reads (it needs no schema, only levels). */
export const DEFAULT_API_OPTIONS: IdentityApiOptions = { passwordMinLength: 8 };

export const userTags = ['users'];
export const validation = { errors: [E.validation_failed] };
export const unauthorized = { errors: [E.credential_missing, E.invalid_token] };
export const forbidden = { errors: [E.forbidden] };
export const notFound = { description: 'Also for a malformed id.', errors: [E.user_not_found] };
export const revocationsDown = {
  description: 'The revocation store is unavailable: nothing changed, try again.',
  errors: [E.service_unavailable],
};
export const passwordBackoff = {
  description: 'Too many wrong passwords for this account from this address (the back-off), or for this account overall.',
  errors: [E.rate_limited],
};
