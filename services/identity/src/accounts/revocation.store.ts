import { recordRevocations, type RedisHandle } from '@restgate/shared/limits';
import type { RevocationRecorder } from './sessions';
import { identityErrors } from '../errors';

/**
 * Ended sessions, on the Redis every gateway replica listens to. Each entry lives as long as the
 * longest access token (`lifetimeSeconds`): past that, every token it covers has expired anyway.
 */
export function createRevocationRecorder(redis: RedisHandle['client'], prefix: string, lifetimeSeconds: number): RevocationRecorder {
  const record = async (entries: Parameters<typeof recordRevocations>[2]) => {
    try {
      await recordRevocations(redis, prefix, entries, lifetimeSeconds);
    } catch (err) {
      throw identityErrors.revocationsUnavailable(err);
    }
  };
  return {
    sessionsEnded: (sessionIds) => record(sessionIds.map((session) => ({ session }))),
    // No `before`: every epoch there can be, so no clock (of this replica or another) matters.
    userEnded: (userId, options = {}) =>
      record([{ user: userId, before: options.before ?? Number.MAX_SAFE_INTEGER, ...(options.except ? { except: options.except } : {}) }]),
  };
}
