import type { Redis } from 'ioredis';
import type { ChangeEvent } from '@restgate/shared/resource';

/**
 * The realtime window: the recent change events of each resource in a Redis Stream of its own,
 * shared by every gateway replica. A stream entry's id (`<ms>-<n>`, given by Redis) is the event's
 * position; a client resumes from the positions it last saw, on any replica. Each stream keeps
 * at least the last `keepMinutes` and the last `keepEvents` events (whichever is more), up to
 * `maxEvents`, trimmed by whichever replica's timer comes first.
 */
export interface WindowEntry {
  resource: string;
  /** The stream entry id. */
  position: string;
  event: ChangeEvent;
  /** The frames made of it so far, by what the readers' rules know of them (the hub's cache). */
  bodies?: Map<string, string | null>;
}

export interface WindowOptions {
  redis: Redis;
  prefix: string;
  keepMinutes: number;
  keepEvents: number;
  /** A hard cap per stream, whatever the time: what a burst may cost Redis. */
  maxEvents: number;
}

/** How long the last sequence of a record is remembered (to drop a redelivered or late event). */
const SEQ_TTL_MS = 24 * 60 * 60_000;

/**
 * Appends an event unless its record already has one of this sequence or a later one (a
 * redelivery, or an older event arriving late): de-duplicated by (record, seq) in one step.
 * KEYS: stream, the record's last-seq key. ARGV: event JSON, seq, seq TTL ms.
 */
const APPEND = `
local last = tonumber(redis.call('GET', KEYS[2]) or '0')
local seq = tonumber(ARGV[2])
if seq <= last then return false end
redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3])
return redis.call('XADD', KEYS[1], '*', 'e', ARGV[1])
`;

/**
 * Trims what is both older than the time bound and beyond the newest `keep` entries, then
 * anything beyond `max`; records the newest id it removed (KEYS[2]), which is how a resume from
 * before it is known to have a gap. KEYS: stream, trimmed-marker. ARGV: keep, the oldest id the
 * time bound keeps, max.
 */
const TRIM = `
local function less(a, b)
  local da, db = string.find(a, '-'), string.find(b, '-')
  local a1, a2 = tonumber(string.sub(a, 1, da - 1)), tonumber(string.sub(a, da + 1))
  local b1, b2 = tonumber(string.sub(b, 1, db - 1)), tonumber(string.sub(b, db + 1))
  return a1 < b1 or (a1 == b1 and a2 < b2)
end
local function mark(id)
  local old = redis.call('GET', KEYS[2])
  if not old or less(old, id) then redis.call('SET', KEYS[2], id) end
end
local removed = 0
local keep, max = tonumber(ARGV[1]), tonumber(ARGV[3])
if redis.call('XLEN', KEYS[1]) > keep then
  local newest = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', keep)
  local cut = newest[#newest][1]
  if less(ARGV[2], cut) then cut = ARGV[2] end
  local gone = redis.call('XREVRANGE', KEYS[1], '(' .. cut, '-', 'COUNT', 1)
  if #gone > 0 then
    mark(gone[1][1])
    removed = removed + redis.call('XTRIM', KEYS[1], 'MINID', cut)
  end
end
local len = redis.call('XLEN', KEYS[1])
if len > max then
  local over = redis.call('XRANGE', KEYS[1], '-', '+', 'COUNT', len - max)
  mark(over[#over][1])
  removed = removed + redis.call('XTRIM', KEYS[1], 'MAXLEN', max)
end
return removed
`;

/** Stream ids compared: negative when `a` comes first. */
export function comparePositions(a: string, b: string): number {
  const [a1, a2] = a.split('-').map(Number) as [number, number];
  const [b1, b2] = b.split('-').map(Number) as [number, number];
  return a1 !== b1 ? a1 - b1 : a2 - b2;
}

export const POSITION_PATTERN = /^\d{1,15}-\d{1,10}$/;

export function createEventWindow(options: WindowOptions) {
  const { redis, prefix } = options;
  const streamKey = (resource: string) => `${prefix}:rt:s:${resource}`;
  const parse = (resource: string, [position, fields]: [string, string[]]): WindowEntry | null => {
    const json = fields[fields.indexOf('e') + 1];
    try {
      return json ? { resource, position, event: JSON.parse(json) as ChangeEvent } : null;
    } catch {
      return null;
    }
  };

  return {
    streamKey,

    /** Appends `event` to its resource's stream; its position, or null when it was a copy or late. */
    async append(event: ChangeEvent): Promise<string | null> {
      const seqKey = `${prefix}:rt:q:${event.resource}:${event.recordId}`;
      const id = await redis.eval(APPEND, 2, streamKey(event.resource), seqKey, JSON.stringify(event), event.seq, SEQ_TTL_MS);
      return typeof id === 'string' ? id : null;
    },

    /** Entries after `position` (exclusive), oldest first, at most `count`. */
    async after(resource: string, position: string, count: number): Promise<WindowEntry[]> {
      const rows = (await redis.xrange(streamKey(resource), `(${position}`, '+', 'COUNT', count)) as Array<[string, string[]]>;
      return rows.map((row) => parse(resource, row)).filter((entry): entry is WindowEntry => entry !== null);
    },

    /** The newest position of a resource's stream ('0-0' when it has none yet). */
    async newest(resource: string): Promise<string> {
      const rows = (await redis.xrevrange(streamKey(resource), '+', '-', 'COUNT', 1)) as Array<[string, string[]]>;
      return rows[0]?.[0] ?? '0-0';
    },

    /**
     * Whether everything after `position` is still held: false when entries after it were
     * trimmed (a resume from there would miss them: the client must refetch).
     */
    async holdsAfter(resource: string, position: string): Promise<boolean> {
      const trimmed = await redis.get(`${streamKey(resource)}:trimmed`);
      return trimmed === null || comparePositions(position, trimmed) >= 0;
    },

    /** Trims each resource's stream to the window. */
    async trim(resources: readonly string[], now = Date.now()): Promise<void> {
      const oldestKept = `${now - options.keepMinutes * 60_000}-0`;
      for (const resource of resources) {
        const key = streamKey(resource);
        await redis.eval(TRIM, 2, key, `${key}:trimmed`, options.keepEvents, oldestKept, options.maxEvents);
      }
    },

    /** Reads what follows `positions` (resource → position), waiting up to `blockMs`. */
    async read(positions: Map<string, string>, blockMs: number, reader: Redis): Promise<WindowEntry[]> {
      const resources = [...positions.keys()];
      const reply = (await reader.xread(
        'COUNT',
        1000,
        'BLOCK',
        blockMs,
        'STREAMS',
        ...resources.map(streamKey),
        ...resources.map((r) => positions.get(r)!),
      )) as Array<[string, Array<[string, string[]]>]> | null;
      const entries: WindowEntry[] = [];
      for (const [key, rows] of reply ?? []) {
        const resource = resources.find((r) => streamKey(r) === key)!;
        for (const row of rows) {
          const entry = parse(resource, row);
          if (entry) entries.push(entry);
          positions.set(resource, row[0]);
        }
      }
      return entries;
    },
  };
}

export type EventWindow = ReturnType<typeof createEventWindow>;
