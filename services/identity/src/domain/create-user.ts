import { isDuplicateKeyError, type Principal } from '@restgate/shared';
import { identityErrors } from '../errors';
import { assertMayGrantRole } from './access';
import type { IdentityDeps } from './identity-deps';
import { fullView, gravatarUrl, nameFromEmail, normalizeEmail, type FullUserView, type Role } from './user';

export interface CreateUserInput {
  email: string;
  password: string;
  name?: string;
  picture?: string;
  role: Role;
}

export async function createUser(deps: IdentityDeps, caller: Principal, input: CreateUserInput): Promise<FullUserView> {
  assertMayGrantRole(caller, input.role);
  const email = normalizeEmail(input.email);
  const passwordHash = await deps.hasher.hash(input.password);
  try {
    const user = await deps.users.insert({
      email,
      name: input.name ?? nameFromEmail(email),
      picture: input.picture ?? gravatarUrl(email),
      role: input.role,
      passwordHash,
    });
    return fullView(user);
  } catch (err) {
    // The unique index decides, so two concurrent sign-ups can't both win.
    if (isDuplicateKeyError(err)) throw identityErrors.emailTaken();
    throw err;
  }
}
