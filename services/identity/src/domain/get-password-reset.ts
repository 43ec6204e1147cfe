import { assertActiveReset, assertResetUser, type PasswordResetDeps } from './password-reset';

export interface PasswordResetView {
  user: { id: string; name: string; picture: string; email: string };
}

/** Whose reset a token opens, for the reset page ("Choose a new password, Ada"). */
export async function getPasswordReset(deps: Pick<PasswordResetDeps, 'resets' | 'users'>, token: string): Promise<PasswordResetView> {
  const reset = await assertActiveReset(deps, token);
  const user = await assertResetUser(deps, reset);
  return { user: { id: user.id, name: user.name, picture: user.picture, email: user.email } };
}
