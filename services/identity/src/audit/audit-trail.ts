import { isAppError } from '@restgate/shared';
import { createAuditTrail, type AuditActor, type AuditSubject, type AuditTrail as SharedAuditTrail } from '@restgate/shared/resource';

/**
 * The auth event types identity records (docs/api.md, "Audit log"). The audit service adds
 * `users.created`, `users.deleted`, `users.role_changed` and `admin.write` from the change events.
 */
export const AUTH_EVENT_TYPES = [
  'auth.sign_in.succeeded',
  'auth.sign_in.failed',
  'auth.sign_in.refused',
  'auth.mfa.succeeded',
  'auth.mfa.failed',
  'auth.refresh.succeeded',
  'auth.refresh.reuse_detected',
  'auth.logout',
  'auth.session.revoked',
  'auth.password.changed',
  'auth.password_reset.requested',
  'auth.password_reset.completed',
  'auth.email.verified',
  'auth.mfa.enabled',
  'auth.mfa.disabled',
  'auth.recovery_codes.regenerated',
  'auth.social.linked',
] as const;
export type AuthEventType = (typeof AUTH_EVENT_TYPES)[number];

/** The user an event is about. */
export const userSubject = (id: string | null): AuditSubject => ({ kind: 'user', id });

/** A user acting as themself (a sign-in proves who they are before any token names them). */
export const actorOfUser = (user: { id: string; role: string }): AuditActor => ({
  kind: user.role === 'admin' ? 'admin' : 'user',
  id: user.id,
});

/** Identity's trail: the auth event types only. */
export type AuditTrail = SharedAuditTrail<AuthEventType>;
export { createAuditTrail };

/**
 * How a failed sign-in step is recorded: refused (a limit, the back-off, the hashing queue full:
 * the credentials were not checked) or failed (they were checked and did not do), with the
 * answer's code as the reason; undefined for an error that is no verdict on the credentials.
 */
export function verdictOf(err: unknown): { refused: boolean; reason: string } | undefined {
  // The second step opened: the password was right, and the step is recorded on its own.
  if (!isAppError(err) || err.code === 'mfa_required') return undefined;
  if (err.status === 429 || err.status === 503) return { refused: true, reason: err.code };
  // 409: a social account that may not be linked (its address or password not proven).
  if (err.status === 401 || err.status === 403 || err.status === 409) return { refused: false, reason: err.code };
  return undefined;
}
