import { randomUUID } from 'node:crypto';
import type { Logger, Principal } from '@restgate/shared';
import { isDuplicateKeyError } from '@restgate/shared/data';
import { identityErrors } from '../errors';
import { assertMayGrantRole } from './access';
import type { AccountsDeps } from './accounts-deps';
import { gravatarUrl, nameFromEmail, normalizeEmail, type Role, type UserRecord } from './user';

export interface CreateUserInput {
  email: string;
  password: string;
  name?: string;
  picture?: string;
  role: Role;
}

/** The HTTP request's id (it travels with the verification mail) and its logger. */
export interface CreateUserContext {
  requestId?: string;
  log?: Logger;
  /** The request's: a client gone (or a gateway that timed out) before the hash is done creates no user. */
  signal?: AbortSignal;
}

/** Sign-up: the user, unverified, and a verification mail to the address. */
export async function createUser(
  deps: AccountsDeps,
  caller: Principal,
  input: CreateUserInput,
  context: CreateUserContext = {},
): Promise<UserRecord> {
  assertMayGrantRole(caller, input.role, deps.adminSignUp);
  const email = normalizeEmail(input.email);
  const passwordHash = await deps.hasher.hash(input.password, context.signal);
  let user;
  try {
    user = await deps.users.insert({
      email,
      name: input.name ?? nameFromEmail(email),
      picture: input.picture ?? gravatarUrl(email),
      role: input.role,
      passwordHash,
      emailVerified: false,
    });
  } catch (err) {
    // The unique index decides, so two concurrent sign-ups can't both win.
    if (isDuplicateKeyError(err)) throw identityErrors.emailTaken();
    throw err;
  }
  try {
    await deps.sendVerificationMail(user, context.requestId ?? randomUUID(), context.log);
  } catch (err) {
    // The user exists: a failed answer would invite a retry that meets 409. The client can ask
    // for a new link (POST /email-verifications) instead.
    context.log?.error({ err, userId: user.id }, 'verification mail not queued at sign-up');
  }
  return user;
}
