import type { Redis } from 'ioredis';
import { rateLimited, type RateLimits } from '@restgate/shared/limits';
import { lockSeconds, type SecondFactorGuard, type SecondFactorRules } from './second-factor-guard';

/** The account's record (a hash: n = wrong codes in a row, until = ms the next check must wait for) and the challenge's checks. */
interface Keys {
  account: string;
  challenge: string | null;
}

type Verdict = { refused: null; failures: number; challengeChecks: number } | { refused: 'locked'; retryMs: number } | { refused: 'spent' };

interface Store {
  reserve(keys: Keys): Promise<Verdict>;
  succeeded(keys: Keys): Promise<void>;
  release(keys: Keys): Promise<void>;
  forget(account: string): Promise<void>;
}

/** Wrong codes are remembered until a right code or a reset; past a month without one, they go. */
const ACCOUNT_MEMORY_MS = 30 * 86_400_000;
/** A challenge lives 5 minutes: its count a little longer. */
const CHALLENGE_MEMORY_MS = 10 * 60_000;

/**
 * The guard on Redis: each step is one script, so the decision and the counts are one atomic step
 * however many replicas and concurrent checks there are. While Redis does not answer, the same
 * steps run in this process: guessing stays bounded per replica, not unlimited.
 */
export function createSecondFactorGuard(limits: RateLimits, rules: SecondFactorRules): SecondFactorGuard {
  const redis = redisStore(limits.store, rules);
  const memory = memoryStore(rules);
  const prefix = `${limits.keyPrefix}:mfa`;
  // One hash slot per user (`{…}`): a script may touch both keys on a Redis Cluster too.
  const accountKey = (userId: string) => `${prefix}:{${userId}}`;

  return {
    async reserve(userId, challengeKey) {
      const keys: Keys = { account: accountKey(userId), challenge: challengeKey ? `${prefix}:{${userId}}:c:${challengeKey}` : null };
      let store: Store = redis;
      const verdict = await limits.guarded(
        'mfa-guard',
        () => redis.reserve(keys),
        () => {
          store = memory;
          return memory.reserve(keys);
        },
      );
      if (verdict.refused === 'spent') return 'spent';
      if (verdict.refused === 'locked') {
        limits.recordLimited('mfa-locked');
        const resetSeconds = Math.max(1, Math.ceil(verdict.retryMs / 1000));
        throw rateLimited(
          {
            name: 'mfa-locked',
            allowed: false,
            limit: rules.accountBound,
            remaining: 0,
            windowSeconds: rules.maxSeconds,
            resetSeconds,
          },
          undefined,
          `Too many wrong codes for this account. Try again in ${resetSeconds} s, or reset the password.`,
        );
      }
      const settle = (step: 'succeeded' | 'release') =>
        limits.guarded(
          'mfa-guard',
          () => store[step](keys),
          () => undefined,
        );
      return {
        failures: verdict.failures,
        challengeChecks: verdict.challengeChecks,
        succeeded: () => settle('succeeded'),
        release: () => settle('release'),
      };
    },
    async forget(userId) {
      const account = accountKey(userId);
      await limits.guarded(
        'mfa-guard',
        async () => {
          await redis.forget(account);
          await memory.forget(account);
        },
        () => memory.forget(account),
      );
    },
  };
}

// KEYS[1]: the account's record; KEYS[2]: the challenge's checks (ARGV[4] = 0: no challenge). Redis's clock, so replicas agree.
const RESERVE = `
if redis.replicate_commands then redis.replicate_commands() end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local waitUntil = tonumber(redis.call('HGET', KEYS[1], 'until') or '0')
if waitUntil > now then return {1, waitUntil - now, 0} end
local checks = 0
if tonumber(ARGV[4]) > 0 then
  checks = tonumber(redis.call('GET', KEYS[2]) or '0')
  if checks >= tonumber(ARGV[4]) then return {2, 0, checks} end
  checks = redis.call('INCR', KEYS[2])
  redis.call('PEXPIRE', KEYS[2], ARGV[5])
end
local n = redis.call('HINCRBY', KEYS[1], 'n', 1)
local over = n - tonumber(ARGV[1])
if over >= 0 then
  local wait = math.min(tonumber(ARGV[3]), tonumber(ARGV[2]) * 2 ^ math.min(over, 30))
  redis.call('HSET', KEYS[1], 'until', now + wait)
end
redis.call('PEXPIRE', KEYS[1], ARGV[6])
return {0, n, checks}
`;
const SUCCEEDED = `
redis.call('DEL', KEYS[1])
return 0
`;
const RELEASE = `
if tonumber(redis.call('HGET', KEYS[1], 'n') or '0') > 0 then redis.call('HINCRBY', KEYS[1], 'n', -1) end
if tonumber(ARGV[1]) > 0 and tonumber(redis.call('GET', KEYS[2]) or '0') > 0 then redis.call('DECR', KEYS[2]) end
return 0
`;

type Scripted = Redis & {
  mfaReserve(account: string, challenge: string, ...args: Array<string | number>): Promise<[number, number, number]>;
  mfaSucceeded(account: string, challenge: string): Promise<number>;
  mfaRelease(account: string, challenge: string, hasChallenge: number): Promise<number>;
};

function redisStore(client: Redis, rules: SecondFactorRules): Store {
  client.defineCommand('mfaReserve', { numberOfKeys: 2, lua: RESERVE });
  client.defineCommand('mfaSucceeded', { numberOfKeys: 2, lua: SUCCEEDED });
  client.defineCommand('mfaRelease', { numberOfKeys: 2, lua: RELEASE });
  const scripted = client as Scripted;
  // Without a challenge the second key is the account's own (never read): both keys stay in one slot.
  const second = (keys: Keys) => keys.challenge ?? keys.account;
  return {
    async reserve(keys) {
      const [code, a, b] = await scripted.mfaReserve(
        keys.account,
        second(keys),
        rules.accountBound,
        rules.baseSeconds * 1000,
        rules.maxSeconds * 1000,
        keys.challenge ? rules.perChallenge : 0,
        CHALLENGE_MEMORY_MS,
        ACCOUNT_MEMORY_MS,
      );
      if (code === 1) return { refused: 'locked', retryMs: a };
      if (code === 2) return { refused: 'spent' };
      return { refused: null, failures: a, challengeChecks: b };
    },
    succeeded: async (keys) => void (await scripted.mfaSucceeded(keys.account, second(keys))),
    release: async (keys) => void (await scripted.mfaRelease(keys.account, second(keys), keys.challenge ? 1 : 0)),
    forget: async (account) => void (await client.del(account)),
  };
}

/** The same steps in this process's memory (one thread: each step is atomic here too). */
function memoryStore(rules: SecondFactorRules): Store {
  const accounts = new Map<string, { n: number; until: number }>();
  const challenges = new Map<string, { checks: number; expiresAt: number }>();
  const sweep = (now: number) => {
    if (challenges.size < 10_000) return;
    for (const [key, entry] of challenges) if (entry.expiresAt <= now) challenges.delete(key);
  };
  return {
    async reserve({ account, challenge }) {
      const now = Date.now();
      sweep(now);
      const record = accounts.get(account) ?? { n: 0, until: 0 };
      if (record.until > now) return { refused: 'locked', retryMs: record.until - now };
      let checks = 0;
      if (challenge) {
        const entry = challenges.get(challenge);
        const live = entry && entry.expiresAt > now ? entry : { checks: 0, expiresAt: now + CHALLENGE_MEMORY_MS };
        if (live.checks >= rules.perChallenge) return { refused: 'spent' };
        live.checks += 1;
        challenges.set(challenge, live);
        checks = live.checks;
      }
      record.n += 1;
      if (record.n >= rules.accountBound) record.until = now + lockSeconds(record.n, rules) * 1000;
      accounts.set(account, record);
      return { refused: null, failures: record.n, challengeChecks: checks };
    },
    async succeeded({ account }) {
      accounts.delete(account);
    },
    async release({ account, challenge }) {
      const record = accounts.get(account);
      if (record && record.n > 0) record.n -= 1;
      const entry = challenge ? challenges.get(challenge) : undefined;
      if (entry && entry.checks > 0) entry.checks -= 1;
    },
    async forget(account) {
      accounts.delete(account);
    },
  };
}
