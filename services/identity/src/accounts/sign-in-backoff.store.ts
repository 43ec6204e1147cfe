import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { addressKey, rateLimited, type Quota, type RateLimits } from '@restgate/shared/limits';
import { backoffSeconds, type BackoffReservation, type BackoffSettings, type SignInBackoff } from './sign-in-backoff';

/** The e-mail never goes into Redis as it is: its hash keys the counters. */
const accountKey = (email: string) => createHash('sha256').update(email).digest('base64url').slice(0, 22);

/** The two counters a try touches: its address's failures in a row, and its account's failures in the window. */
interface Keys {
  streak: string;
  account: string;
}

/** What the store decided: reserved, or refused by one of the two limits with the wait in ms. */
type Verdict = { refused: null } | { refused: 'password-backoff' | 'password-account'; retryMs: number };

interface Store {
  reserve(keys: Keys): Promise<Verdict>;
  succeeded(keys: Keys): Promise<void>;
  release(keys: Keys): Promise<void>;
}

interface Rules extends BackoffSettings {
  account: Quota;
}

/** How long an address's failures in a row are remembered: as long as the longest wait, twice. */
const streakTtlMs = (rules: Rules) => Math.max(3_600, rules.maxSeconds * 2) * 1000;

/**
 * The back-off on Redis: each step is one script, so the decision and both counts are one atomic
 * step however many replicas and concurrent tries there are. While Redis does not answer, the
 * same steps run in this process (logged and counted by `limits`): guessing stays throttled per
 * replica rather than unlimited, and the owner is not locked out by an outage.
 */
export function createSignInBackoff(limits: RateLimits, rules: Rules): SignInBackoff {
  const redis = redisStore(limits.store, rules);
  const memory = memoryStore(rules);
  const prefix = `${limits.keyPrefix}:pw`;

  const refuse = (verdict: Exclude<Verdict, { refused: null }>) => {
    limits.recordLimited(verdict.refused);
    const resetSeconds = Math.max(1, Math.ceil(verdict.retryMs / 1000));
    const backoff = verdict.refused === 'password-backoff';
    return rateLimited(
      {
        name: verdict.refused,
        allowed: false,
        limit: backoff ? rules.freeFailures : rules.account.points,
        remaining: 0,
        windowSeconds: backoff ? rules.maxSeconds : rules.account.seconds,
        resetSeconds,
      },
      undefined,
      `${backoff ? 'Too many wrong passwords for this account from your address.' : 'Too many wrong passwords for this account.'} Try again in ${resetSeconds} s.`,
    );
  };

  return {
    async reserve(email, address) {
      const account = accountKey(email);
      // One hash slot for both keys (`{…}`): a script may touch them together on a Redis Cluster too.
      // An IPv6 client counts per /64 (addressKey), or each of its addresses would start a new streak.
      const keys: Keys = { streak: `${prefix}:{${account}}:from:${addressKey(address)}`, account: `${prefix}:{${account}}:account` };
      let store: Store = redis;
      const verdict = await limits.guarded(
        'password-backoff',
        () => redis.reserve(keys),
        () => {
          store = memory;
          return memory.reserve(keys);
        },
      );
      if (verdict.refused) throw refuse(verdict);
      // Settled where it was reserved; a store that fails meanwhile keeps the try counted.
      const settle = (step: 'succeeded' | 'release') =>
        limits.guarded(
          'password-backoff',
          () => store[step](keys),
          () => undefined,
        );
      return { succeeded: () => settle('succeeded'), release: () => settle('release') } satisfies BackoffReservation;
    },
  };
}

// KEYS[1]: the address's streak (a hash: n = failures in a row, until = ms the next try must wait for);
// KEYS[2]: the account's failures in the window. Redis's clock, so replicas agree.
const RESERVE = `
if redis.replicate_commands then redis.replicate_commands() end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local n = tonumber(redis.call('HGET', KEYS[1], 'n') or '0')
local waitUntil = tonumber(redis.call('HGET', KEYS[1], 'until') or '0')
if waitUntil > now then return {1, waitUntil - now} end
local count = tonumber(redis.call('GET', KEYS[2]) or '0')
if count >= tonumber(ARGV[4]) and n > 0 then
  local ttl = redis.call('PTTL', KEYS[2])
  if ttl < 1 then ttl = 1 end
  return {2, ttl}
end
n = n + 1
local over = n - tonumber(ARGV[1])
local wait = 0
if over > 0 then wait = math.min(tonumber(ARGV[3]), tonumber(ARGV[2]) * 2 ^ math.min(over - 1, 30)) end
redis.call('HSET', KEYS[1], 'n', n, 'until', now + wait * 1000)
redis.call('PEXPIRE', KEYS[1], ARGV[6])
if redis.call('INCR', KEYS[2]) == 1 then redis.call('PEXPIRE', KEYS[2], ARGV[5]) end
return {0, 0}
`;
const SUCCEEDED = `
redis.call('DEL', KEYS[1])
if tonumber(redis.call('GET', KEYS[2]) or '0') > 0 then redis.call('DECR', KEYS[2]) end
return 0
`;
const RELEASE = `
if tonumber(redis.call('HGET', KEYS[1], 'n') or '0') > 0 then redis.call('HINCRBY', KEYS[1], 'n', -1) end
if tonumber(redis.call('GET', KEYS[2]) or '0') > 0 then redis.call('DECR', KEYS[2]) end
return 0
`;

type Scripted = Redis & {
  pwReserve(streak: string, account: string, ...args: Array<string | number>): Promise<[number, number]>;
  pwSucceeded(streak: string, account: string): Promise<number>;
  pwRelease(streak: string, account: string): Promise<number>;
};

function redisStore(client: Redis, rules: Rules): Store {
  // ioredis sends EVALSHA, and the script itself the first time Redis does not know it.
  client.defineCommand('pwReserve', { numberOfKeys: 2, lua: RESERVE });
  client.defineCommand('pwSucceeded', { numberOfKeys: 2, lua: SUCCEEDED });
  client.defineCommand('pwRelease', { numberOfKeys: 2, lua: RELEASE });
  const scripted = client as Scripted;
  const args = [
    rules.freeFailures,
    rules.baseSeconds,
    rules.maxSeconds,
    rules.account.points,
    rules.account.seconds * 1000,
    streakTtlMs(rules),
  ];
  return {
    async reserve({ streak, account }) {
      const [code, retryMs] = await scripted.pwReserve(streak, account, ...args);
      if (code === 0) return { refused: null };
      return { refused: code === 1 ? 'password-backoff' : 'password-account', retryMs };
    },
    succeeded: async ({ streak, account }) => void (await scripted.pwSucceeded(streak, account)),
    release: async ({ streak, account }) => void (await scripted.pwRelease(streak, account)),
  };
}

/** The same steps in this process's memory (one thread: each step is atomic here too). */
function memoryStore(rules: Rules): Store {
  const streaks = new Map<string, { n: number; until: number; expiresAt: number }>();
  const accounts = new Map<string, { count: number; expiresAt: number }>();
  const live = <T extends { expiresAt: number }>(map: Map<string, T>, key: string, now: number): T | undefined => {
    const entry = map.get(key);
    if (entry && entry.expiresAt <= now) map.delete(key);
    return entry && entry.expiresAt > now ? entry : undefined;
  };
  // Entries are dropped as they are read once expired, and all at once past this many.
  const sweep = (now: number) => {
    if (streaks.size + accounts.size < 10_000) return;
    for (const map of [streaks, accounts] as Array<Map<string, { expiresAt: number }>>) {
      for (const [key, entry] of map) if (entry.expiresAt <= now) map.delete(key);
    }
  };
  return {
    async reserve({ streak, account }) {
      const now = Date.now();
      sweep(now);
      const s = live(streaks, streak, now) ?? { n: 0, until: 0, expiresAt: 0 };
      if (s.until > now) return { refused: 'password-backoff', retryMs: s.until - now };
      const a = live(accounts, account, now) ?? { count: 0, expiresAt: now + rules.account.seconds * 1000 };
      if (a.count >= rules.account.points && s.n > 0) return { refused: 'password-account', retryMs: Math.max(1, a.expiresAt - now) };
      s.n += 1;
      s.until = now + backoffSeconds(s.n, rules) * 1000;
      s.expiresAt = now + streakTtlMs(rules);
      a.count += 1;
      streaks.set(streak, s);
      accounts.set(account, a);
      return { refused: null };
    },
    async succeeded({ streak, account }) {
      streaks.delete(streak);
      const a = live(accounts, account, Date.now());
      if (a && a.count > 0) a.count -= 1;
    },
    async release({ streak, account }) {
      const now = Date.now();
      const s = live(streaks, streak, now);
      if (s && s.n > 0) s.n -= 1;
      const a = live(accounts, account, now);
      if (a && a.count > 0) a.count -= 1;
    },
  };
}
