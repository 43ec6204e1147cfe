import { isAppError, type Logger } from '@restgate/shared';
import {
  authEvent,
  type AuditActor,
  type AuditSubject,
  type AuthEventInit,
  type ChangeOutbox,
  type OutboxEntry,
} from '@restgate/shared/resource';

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

export interface AuditTrail {
  /**
   * Records what the request being served did. Awaited before its answer: a request answered as
   * done has its event in the outbox, which the change relay publishes (at least once).
   */
  record(type: AuthEventType, init: AuthEventInit): Promise<void>;
  /**
   * Records a failed or refused step of a request that is failing anyway: a write that fails is
   * logged, and the request keeps its own error.
   */
  recordFailure(type: AuthEventType, init: AuthEventInit): Promise<void>;
}

export interface AuditTrailOptions {
  outbox: ChangeOutbox;
  /** AUDIT_EVENTS: off, nothing is recorded. */
  enabled: boolean;
  /** The relay publishes a new entry at once. */
  offer: (entry: OutboxEntry) => void;
  logger: Logger;
}

/** A pass of any relay takes an auth event only after this: until then, this process's relay publishes it. */
const OWN_RELAY_MS = 5_000;

export function createAuditTrail(options: AuditTrailOptions): AuditTrail {
  const log = options.logger.child({ component: 'audit-trail' });
  async function record(type: AuthEventType, init: AuthEventInit): Promise<void> {
    if (!options.enabled) return;
    const entry = await options.outbox.claim(authEvent(type, init), new Date(), OWN_RELAY_MS);
    // A fresh random id: taken only if the outbox already holds this very event.
    if (entry) options.offer(entry);
  }
  return {
    record,
    async recordFailure(type, init) {
      try {
        await record(type, init);
      } catch (err) {
        log.error({ type, err: (err as Error).message }, 'an auth event could not be recorded');
      }
    },
  };
}

/** Records nothing (tests of something else, and AUDIT_EVENTS off). */
export const noAuditTrail: AuditTrail = { record: async () => undefined, recordFailure: async () => undefined };

/**
 * How a failed sign-in step is recorded: refused (a limit, the back-off, the hashing queue full:
 * the credentials were not checked) or failed (they were checked and did not do), with the
 * answer's code as the reason; undefined for an error that is no verdict on the credentials.
 */
export function verdictOf(err: unknown): { refused: boolean; reason: string } | undefined {
  // The second step opened: the password was right, and the step is recorded on its own.
  if (!isAppError(err) || err.code === 'mfa_required') return undefined;
  if (err.status === 429 || err.status === 503) return { refused: true, reason: err.code };
  if (err.status === 401 || err.status === 403) return { refused: false, reason: err.code };
  return undefined;
}
