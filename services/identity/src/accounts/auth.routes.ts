import { bindRoutes, type RouteDef } from '@restgate/shared/http';
import type { authApi } from './accounts.api';
import type { AccountsDeps } from './accounts-deps';
import { logout } from './manage-sessions';
import { refreshSession } from './sessions';
import { signIn } from './sign-in';
import { parseBasicCredentials, type BasicCredentials } from './basic-credentials';
import { signedInView } from './user.views';
import { normalizeEmail } from './user';
import { userSubject, verdictOf } from '../audit/audit-trail';

/**
 * A sign-in that did not open a session (nor its second step): recorded as refused or failed,
 * naming the account when the e-mail is one's (the attempted e-mail itself is not kept: a
 * password typed into the wrong field would be).
 */
export async function recordSignInFailure(
  deps: Pick<AccountsDeps, 'users' | 'audit'>,
  err: unknown,
  credentials: BasicCredentials | null,
  method: string,
): Promise<void> {
  const verdict = verdictOf(err);
  if (!verdict) return;
  const user = credentials ? await deps.users.findByEmail(normalizeEmail(credentials.email)).catch(() => null) : null;
  await deps.audit.recordFailure(verdict.refused ? 'auth.sign_in.refused' : 'auth.sign_in.failed', {
    outcome: 'failure',
    actor: { kind: 'anonymous', id: null },
    subject: userSubject(user?.id ?? null),
    details: { method, reason: verdict.reason, ...(user || !credentials ? {} : { account: 'unknown' }) },
  });
}

export function authRoutes(deps: AccountsDeps, api: typeof authApi): RouteDef[] {
  return bindRoutes(api, {
    signIn: async ({ headers, clientAddress, signal }) => {
      const credentials = parseBasicCredentials(headers.authorization);
      try {
        const signedIn = await signIn(deps, credentials, { clientAddress, signal, userAgent: headers['user-agent'] });
        return { status: 201, body: signedInView(signedIn) };
      } catch (err) {
        await recordSignInFailure(deps, err, credentials, 'password');
        throw err;
      }
    },
    refreshSession: async ({ body }) => ({ status: 201, body: signedInView(await refreshSession(deps, body.refreshToken)) }),
    logout: async ({ principal }) => {
      await logout(deps, principal);
      return { status: 204 };
    },
  });
}
