import type { Redis } from 'ioredis';
import type { Logger } from 'pino';

/**
 * Ended sessions, as identity records them and every gateway replica reads them. One sorted set
 * holds the entries, scored by the time they may be forgotten (when every access token they
 * cover has expired anyway); one channel announces each new entry. Both live under the key
 * prefix that identity and the gateway share (REDIS_KEY_PREFIX).
 *
 * Entries: `s:<session id>` (that session's tokens); `u:<user id>:<ms>[:<session id>]` (every
 * token of that user whose credentials epoch is older than that time, except that session's: a
 * password change or reset, or a deleted user, whose sessions may still be opening).
 *
 * A token's credentials epoch (claim `cep`, ms; 0 or absent: the user's first password) says
 * which password its session was opened with. It is compared, not the token's `iat`: a sign-in
 * that checked the old password just before the change opens its session after it, and a
 * sign-in with the new password a moment later must not be refused.
 */
export type Revocation = { session: string } | { user: string; before: number; except?: string };

export function revocationKey(prefix: string): string {
  return `${prefix}:revocations`;
}

function memberOf(entry: Revocation): string {
  if ('session' in entry) return `s:${entry.session}`;
  return entry.except ? `u:${entry.user}:${entry.before}:${entry.except}` : `u:${entry.user}:${entry.before}`;
}

/**
 * Records ended sessions (identity). Kept `lifetimeSeconds` (the longest an access token lives),
 * then forgotten: the set's own expiry moves with each write, and past entries are pruned.
 * Rejects when Redis does not take it: the caller must not claim the session ended.
 */
export async function recordRevocations(
  redis: Redis,
  prefix: string,
  entries: Revocation[],
  lifetimeSeconds: number,
  now = Date.now(),
): Promise<void> {
  if (entries.length === 0) return;
  const key = revocationKey(prefix);
  const until = now + lifetimeSeconds * 1000;
  const members = entries.map(memberOf);
  const multi = redis.multi().zadd(key, ...members.flatMap((m) => [until, m]));
  multi.zremrangebyscore(key, '-inf', now).pexpire(key, lifetimeSeconds * 1000 + 1000);
  for (const member of members) multi.publish(key, `${until} ${member}`);
  const results = await multi.exec();
  const failed = results?.find(([err]) => err);
  if (!results || failed) throw failed?.[0] ?? new Error('revocations: the transaction was not run');
}

export interface RevocationList {
  /** Is a token of this session and user, of credentials epoch `credentialsEpoch` (ms), revoked? Local, synchronous. */
  isRevoked(token: { sessionId: string; userId: string; credentialsEpoch: number }): boolean;
  /** True once the whole list has been read from Redis at least once. */
  loaded(): boolean;
  /** Resolves once loaded, or after `timeoutMs` anyway (false). */
  whenLoaded(timeoutMs: number): Promise<boolean>;
  /** Entries held (sessions + users), for metrics and tests. */
  size(): number;
  /** Calls `listener` after each new entry arrives (`member`: `s:<session>` or `u:<user>:…`); returns the unsubscribe. */
  onAdded(listener: (member: string) => void): () => void;
  close(): Promise<void>;
}

/**
 * The gateway's copy of the list: read whole at start and after every reconnect, kept fresh by
 * the channel in between (a message arrives within milliseconds of identity's write), and read
 * again every `resyncMs` as a safety net. Checking a token is a Map lookup: no Redis round trip
 * per request. Entries are dropped only when their own time has passed, never because a read
 * came back without them (a Redis that lost data must not re-admit a revoked session).
 */
export function createRevocationList(options: { redis: Redis; prefix: string; logger: Logger; resyncMs?: number }): RevocationList {
  const { redis, prefix, logger } = options;
  const key = revocationKey(prefix);
  const sessions = new Map<string, number>();
  // user id → [before (ms), until (ms), the session spared] entries; usually one.
  const users = new Map<string, Array<[number, number, string | undefined]>>();
  let isLoaded = false;
  const waiters = new Set<() => void>();
  const listeners = new Set<(member: string) => void>();

  const add = (member: string, until: number) => {
    if (member.startsWith('s:')) {
      const sid = member.slice(2);
      sessions.set(sid, Math.max(until, sessions.get(sid) ?? 0));
    } else if (member.startsWith('u:')) {
      const [, user, before, except] = member.split(':');
      const at = Number(before);
      if (!user || !Number.isFinite(at)) return;
      const list = users.get(user) ?? [];
      if (!list.some(([b, , e]) => b === at && e === except)) list.push([at, until, except]);
      users.set(user, list);
    }
  };
  const prune = (now: number) => {
    for (const [sid, until] of sessions) if (until <= now) sessions.delete(sid);
    for (const [user, list] of users) {
      const kept = list.filter(([, until]) => until > now);
      if (kept.length === 0) users.delete(user);
      else users.set(user, kept);
    }
  };

  const subscriber = redis.duplicate({ enableOfflineQueue: true });
  subscriber.on('error', () => {
    // the main client logs connection trouble once; this one reconnects with it
  });
  subscriber.on('message', (_channel: string, message: string) => {
    const space = message.indexOf(' ');
    const until = Number(message.slice(0, space));
    if (space > 0 && Number.isFinite(until)) {
      const member = message.slice(space + 1);
      add(member, until);
      for (const listener of listeners) listener(member);
    }
  });

  let loading: Promise<void> | undefined;
  const load = () => {
    loading ??= (async () => {
      try {
        const now = Date.now();
        const rows = await redis.zrangebyscore(key, now, '+inf', 'WITHSCORES');
        for (let i = 0; i + 1 < rows.length; i += 2) add(rows[i]!, Number(rows[i + 1]));
        prune(now);
        if (!isLoaded) logger.info({ entries: sessions.size + users.size }, 'revocations: list loaded');
        isLoaded = true;
        for (const wake of waiters) wake();
        waiters.clear();
      } catch (err) {
        logger.warn({ err: { message: (err as Error).message } }, 'revocations: could not read the list; keeping the one held');
      } finally {
        loading = undefined;
      }
    })();
    return loading;
  };

  // Subscribed before reading, so nothing recorded in between is missed; read again on every
  // (re)subscription, since messages sent while disconnected are lost.
  subscriber.on('ready', () => {
    subscriber.subscribe(key).then(
      () => load(),
      (err: Error) => logger.warn({ err: { message: err.message } }, 'revocations: could not subscribe'),
    );
  });
  const timer = setInterval(() => void load(), options.resyncMs ?? 30_000);
  timer.unref();

  return {
    isRevoked({ sessionId, userId, credentialsEpoch }) {
      const now = Date.now();
      const until = sessions.get(sessionId);
      if (until !== undefined && until > now) return true;
      const list = users.get(userId);
      return list !== undefined && list.some(([before, end, except]) => end > now && credentialsEpoch < before && sessionId !== except);
    },
    loaded: () => isLoaded,
    whenLoaded: (timeoutMs) =>
      new Promise((resolve) => {
        if (isLoaded) return resolve(true);
        const wake = () => {
          clearTimeout(t);
          resolve(true);
        };
        const t = setTimeout(() => {
          waiters.delete(wake);
          resolve(false);
        }, timeoutMs);
        waiters.add(wake);
      }),
    size: () => sessions.size + users.size,
    onAdded(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      clearInterval(timer);
      try {
        await subscriber.quit();
      } catch {
        subscriber.disconnect();
      }
    },
  };
}
