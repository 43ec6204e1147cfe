import { createHash, randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Principal } from '@restgate/shared';
import type { StreamSession } from './hub';

/**
 * What the gateway replicas share about streams, in Redis: who holds how many (the limits count
 * streams on every replica), and the single-use tickets a browser opens a stream with.
 */

/** A stream's registration lives this long unless refreshed (a replica that dies frees its streams' places by then). */
const REGISTRATION_TTL_MS = 60_000;
const REFRESH_EVERY_MS = 20_000;

/**
 * KEYS: the sets to count in (the principal's, then the address's). ARGV: now, expiry, member,
 * then each set's limit. Returns 0 when taken, or the 1-based index of the set that is full.
 */
const ACQUIRE = `
for i, key in ipairs(KEYS) do
  redis.call('ZREMRANGEBYSCORE', key, '-inf', ARGV[1])
  if redis.call('ZCARD', key) >= tonumber(ARGV[3 + i]) then return i end
end
for i, key in ipairs(KEYS) do
  redis.call('ZADD', key, ARGV[2], ARGV[3])
  redis.call('PEXPIRE', key, ${REGISTRATION_TTL_MS * 2})
end
return 0
`;

export interface StreamLimits {
  /** Registers stream `id`; 'principal' or 'address' when that one already holds its most. */
  acquire(id: string, principalKey: string | null, address: string): Promise<'ok' | 'principal' | 'address'>;
  release(id: string): Promise<void>;
  stop(): void;
}

export function createStreamLimits(options: { redis: Redis; prefix: string; perPrincipal: number; perAddress: number }): StreamLimits {
  const { redis, prefix } = options;
  const held = new Map<string, string[]>();
  const refresh = setInterval(() => {
    const until = Date.now() + REGISTRATION_TTL_MS;
    // One ZADD per set, with every stream of this replica in it (10,000 anonymous streams from one
    // address: one command, not 10,000).
    const members = new Map<string, Array<string | number>>();
    for (const [id, keys] of held) {
      for (const key of keys) {
        const scored = members.get(key) ?? [];
        scored.push(until, id);
        members.set(key, scored);
      }
    }
    const pipeline = redis.pipeline();
    for (const [key, scored] of members) pipeline.zadd(key, 'XX', ...scored);
    pipeline.exec().catch(() => undefined);
  }, REFRESH_EVERY_MS);
  refresh.unref();
  return {
    async acquire(id, principalKey, address) {
      const keys = [...(principalKey ? [`${prefix}:rt:p:${principalKey}`] : []), `${prefix}:rt:a:${address}`];
      const limits = [...(principalKey ? [options.perPrincipal] : []), options.perAddress];
      const now = Date.now();
      const full = (await redis.eval(ACQUIRE, keys.length, ...keys, now, now + REGISTRATION_TTL_MS, id, ...limits)) as number;
      if (full === 0) {
        held.set(id, keys);
        return 'ok';
      }
      return principalKey && full === 1 ? 'principal' : 'address';
    },
    async release(id) {
      const keys = held.get(id);
      held.delete(id);
      if (keys) await Promise.all(keys.map((key) => redis.zrem(key, id))).catch(() => undefined);
    },
    stop: () => clearInterval(refresh),
  };
}

/** What a ticket stands for: the principal and session of the token it was asked with, until that token expires. */
export interface TicketClaims {
  principal: Principal;
  session?: StreamSession;
  expiresAt?: number;
}

export const TICKET_TTL_SECONDS = 30;

/** Single-use tickets: stored by their hash for 30 s, taken (GETDEL) by the stream they open. */
export function createTickets(options: { redis: Redis; prefix: string }) {
  const key = (ticket: string) => `${options.prefix}:rt:t:${createHash('sha256').update(ticket).digest('hex')}`;
  return {
    async issue(claims: TicketClaims): Promise<string> {
      const ticket = randomBytes(32).toString('base64url');
      await options.redis.set(key(ticket), JSON.stringify(claims), 'PX', TICKET_TTL_SECONDS * 1000);
      return ticket;
    },
    async redeem(ticket: string): Promise<TicketClaims | null> {
      if (!/^[A-Za-z0-9_-]{43}$/.test(ticket)) return null;
      const stored = await options.redis.getdel(key(ticket));
      return stored ? (JSON.parse(stored) as TicketClaims) : null;
    },
  };
}
