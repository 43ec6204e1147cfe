import type { Principal } from '@restgate/shared';
import { identityErrors } from '../errors';
import { resolveUserId } from './access';
import type { IdentityDeps } from './identity-deps';

export async function deleteUser(deps: Pick<IdentityDeps, 'users'>, caller: Principal, idParam: string): Promise<void> {
  const deleted = await deps.users.delete(resolveUserId(idParam, caller));
  if (!deleted) throw identityErrors.userNotFound();
}
