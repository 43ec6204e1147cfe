import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import { actsAsAdmin, errors, type Logger, type Principal } from '@restgate/shared';
import type { RevocationList } from '@restgate/shared/limits';
import type { ResourceAccess } from './access';
import { scopeOf, type Topic } from './topics';
import { comparePositions, POSITION_PATTERN, type EventWindow, type WindowEntry } from './window';

/**
 * The event streams one gateway replica serves: each stream's topics and positions, the window's
 * tail fanned out to them, resumes from the window, and the ends a stream can have: `revoked`
 * (its session ended), `expired` (its token did), `overflow` (the client reads too slowly),
 * `reconnect` (this replica is stopping). docs/api.md, "Realtime", is the contract.
 */
export interface HubOptions {
  window: EventWindow;
  /** A connection of its own for the blocking reads of the tail. */
  reader: Redis;
  resources: ReadonlyMap<string, ResourceAccess>;
  revocations?: RevocationList;
  logger: Logger;
  heartbeatMs: number;
  /** Past this many bytes waiting to be sent to a client, its stream ends with `overflow`. */
  bufferBytes: number;
}

export interface StreamSession {
  sid: string;
  userId: string;
  credentialsEpoch: number;
}

interface Stream {
  id: string;
  principal: Principal;
  session?: StreamSession;
  res: ServerResponse;
  topics: Topic[];
  /** Per watched resource, the position of the last entry this stream has passed. */
  positions: Map<string, string>;
  /** While a resume reads the window, the tail's entries wait here. */
  catchingUp: boolean;
  pending: WindowEntry[];
  expiry?: NodeJS.Timeout;
  closed: boolean;
  onClose: Array<() => void>;
}

/** Entries read per stream per step of a resume. */
const RESUME_BATCH = 500;
/** How long a blocking read of the tail waits before it looks again. */
const TAIL_BLOCK_MS = 2_000;

/** `articles:1700000000000-0,users:…` → resource → position; null when malformed. */
export function parsePositions(text: string | undefined): Map<string, string> | null {
  if (!text) return null;
  const positions = new Map<string, string>();
  for (const part of text.split(',')) {
    const colon = part.lastIndexOf(':');
    const resource = part.slice(0, colon);
    const position = part.slice(colon + 1);
    if (colon <= 0 || !/^[a-z][a-z0-9_-]{0,63}$/.test(resource) || !POSITION_PATTERN.test(position)) return null;
    positions.set(resource, position);
  }
  return positions;
}

const positionsText = (positions: Map<string, string>) =>
  [...positions]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([resource, position]) => `${resource}:${position}`)
    .join(',');

const frame = (event: string, data: unknown, id?: string) => `${id ? `id: ${id}\n` : ''}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

export function createHub(options: HubOptions) {
  const { window, resources } = options;
  const log = options.logger.child({ component: 'realtime' });
  const streams = new Map<string, Stream>();
  /** Streams watching each resource. */
  const watching = new Map<string, Set<Stream>>();
  /** The window's tail as this replica has read it: where a new stream starts. */
  const tail = new Map<string, string>();
  let stopped = false;
  let loop: Promise<void> | undefined;
  let tailReady: Promise<void> | undefined;
  let heartbeat: NodeJS.Timeout | undefined;
  let unsubscribe: (() => void) | undefined;

  function end(stream: Stream, event?: 'revoked' | 'expired' | 'overflow' | 'reconnect') {
    if (stream.closed) return;
    if (event) stream.res.write(frame(event, {}));
    stream.res.end();
    forget(stream);
  }

  function forget(stream: Stream) {
    if (stream.closed) return;
    stream.closed = true;
    clearTimeout(stream.expiry);
    streams.delete(stream.id);
    for (const set of watching.values()) set.delete(stream);
    for (const hook of stream.onClose) hook();
  }

  function write(stream: Stream, text: string) {
    if (stream.closed) return;
    stream.res.write(text);
    if (stream.res.writableLength > options.bufferBytes) {
      log.warn(
        { stream: stream.id, buffered: stream.res.writableLength },
        'realtime: a client reads too slowly; its stream ends with overflow',
      );
      end(stream, 'overflow');
    }
  }

  function watch(stream: Stream, topics: Topic[]) {
    stream.topics = topics;
    const names = new Set(topics.map((t) => t.resource));
    for (const [resource, set] of watching) if (!names.has(resource)) set.delete(stream);
    for (const resource of names) {
      if (!watching.has(resource)) watching.set(resource, new Set());
      watching.get(resource)!.add(stream);
      if (!stream.positions.has(resource)) stream.positions.set(resource, tail.get(resource) ?? '0-0');
    }
    for (const resource of [...stream.positions.keys()]) if (!names.has(resource)) stream.positions.delete(resource);
  }

  /**
   * The event and data lines of `entry` for this stream's reader, or null when their rules show
   * them nothing of it. Readers the rules cannot tell apart (the same caller, the same scope) get
   * the same lines: made once per entry, whatever the number of streams.
   */
  function bodyFor(stream: Stream, entry: WindowEntry): string | null {
    const { event } = entry;
    const scope = scopeOf(stream.topics, entry.resource, event.recordId);
    const access = resources.get(entry.resource);
    if (!scope || !access) return null;
    const key = `${scope}|${callerKey(stream.principal)}`;
    const cache = (entry.bodies ??= new Map());
    const cached = cache.get(key);
    if (cached !== undefined) return cached;
    const change = event.type.slice(event.type.lastIndexOf('.') + 1);
    let type = event.type;
    let view = access.view(event.record, stream.principal, scope);
    if (!view && change === 'updated' && event.previous) {
      // It left the reader's view: to them it is gone.
      view = access.view({ ...event.record, ...event.previous }, stream.principal, scope);
      type = `${entry.resource}.deleted`;
    }
    let body: string | null = null;
    if (view) {
      const shown = view;
      const changed = type.endsWith('.deleted') ? [] : event.changed.filter((name) => name in shown);
      body = frame(type, { id: event.id, record: view, changed, at: event.at, requestId: event.requestId });
    }
    cache.set(key, body);
    return body;
  }

  function deliver(stream: Stream, entry: WindowEntry, resuming = false) {
    if (stream.closed) return;
    if (stream.catchingUp && !resuming) {
      stream.pending.push(entry);
      return;
    }
    const at = stream.positions.get(entry.resource);
    if (at === undefined || comparePositions(entry.position, at) <= 0) return;
    stream.positions.set(entry.resource, entry.position);
    const body = bodyFor(stream, entry);
    if (body) write(stream, `id: ${positionsText(stream.positions)}\n${body}`);
  }

  /** Sends what the window holds after the stream's positions, then what the tail brought meanwhile. */
  async function catchUp(stream: Stream) {
    stream.catchingUp = true;
    try {
      for (;;) {
        const batches = await Promise.all([...stream.positions].map(([resource, at]) => window.after(resource, at, RESUME_BATCH)));
        const entries = batches.flat().sort((a, b) => comparePositions(a.position, b.position));
        for (const entry of entries) deliver(stream, entry, true);
        if (stream.closed || batches.every((batch) => batch.length < RESUME_BATCH)) break;
      }
    } finally {
      stream.catchingUp = false;
      const pending = stream.pending;
      stream.pending = [];
      for (const entry of pending) deliver(stream, entry);
    }
  }

  async function readTail() {
    for (const resource of resources.keys()) tail.set(resource, await window.newest(resource));
  }

  async function run() {
    while (!stopped) {
      try {
        const entries = await window.read(tail, TAIL_BLOCK_MS, options.reader);
        // Per stream, everything this read brought in one write (corked), not one per event.
        const reached = new Set<Stream>();
        for (const entry of entries) for (const stream of watching.get(entry.resource) ?? []) reached.add(stream);
        for (const stream of reached) {
          stream.res.cork();
          for (const entry of entries) if (stream.positions.has(entry.resource)) deliver(stream, entry);
          stream.res.uncork();
        }
      } catch (err) {
        if (stopped) break;
        log.warn({ err: (err as Error).message }, 'realtime: reading the window failed; trying again');
        await sleep(500);
      }
    }
  }

  /** Until the tail is known no stream can start: 503 after a few seconds of waiting for it. */
  async function waitForTail() {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(errors.unavailable('Realtime is not ready yet; connect again shortly.')), 5_000);
    });
    try {
      await Promise.race([tailReady ?? Promise.reject(errors.unavailable('Realtime is not running.')), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  function checkRevoked() {
    if (!options.revocations) return;
    for (const stream of streams.values()) {
      const session = stream.session;
      if (
        session &&
        options.revocations.isRevoked({ sessionId: session.sid, userId: session.userId, credentialsEpoch: session.credentialsEpoch })
      )
        end(stream, 'revoked');
    }
  }

  return {
    /** Reads the window's tail (again until Redis answers), then follows it. */
    start(): void {
      tailReady ??= (async () => {
        while (!stopped) {
          try {
            await readTail();
            break;
          } catch (err) {
            log.warn({ err: (err as Error).message }, 'realtime: cannot read the window yet; trying again');
            await sleep(1_000);
          }
        }
        loop = run();
      })();
      unsubscribe = options.revocations?.onAdded(() => checkRevoked());
      heartbeat = setInterval(() => {
        for (const stream of streams.values()) write(stream, ': keep-alive\n\n');
      }, options.heartbeatMs);
      heartbeat.unref();
    },

    /**
     * Serves a stream on `res` (its headers not sent yet). `resumeFrom`: the Last-Event-ID the
     * client sent, if any. `expiresAt`: when the credential it was opened with expires (ms).
     */
    async open(input: {
      res: ServerResponse;
      principal: Principal;
      session?: StreamSession;
      expiresAt?: number;
      topics: Topic[];
      resumeFrom?: string;
      headers?: Record<string, string>;
      onClose?: () => void;
    }): Promise<string> {
      await waitForTail();
      const stream: Stream = {
        id: randomUUID(),
        principal: input.principal,
        session: input.session,
        res: input.res,
        topics: [],
        positions: new Map(),
        // Until its resume has read the window, the tail's entries wait: nothing may be sent
        // before `connected`, or from a position the resume then moves back from.
        catchingUp: true,
        pending: [],
        closed: false,
        onClose: input.onClose ? [input.onClose] : [],
      };
      streams.set(stream.id, stream);
      input.res.on('close', () => forget(stream));
      input.res.writeHead(200, {
        ...input.headers,
        'Content-Type': 'text/event-stream; charset=utf-8',
        'Cache-Control': 'no-store',
        'X-Accel-Buffering': 'no',
        'X-Connection-Id': stream.id,
      });
      watch(stream, input.topics);
      let reset = false;
      if (input.resumeFrom !== undefined) {
        const given = parsePositions(input.resumeFrom);
        reset = given === null;
        for (const resource of stream.positions.keys()) {
          const at = given?.get(resource);
          if (at === undefined) continue;
          if (await window.holdsAfter(resource, at)) stream.positions.set(resource, at);
          else reset = true;
        }
        if (reset) for (const resource of stream.positions.keys()) stream.positions.set(resource, tail.get(resource) ?? '0-0');
      }
      // With the positions it starts from: a client cut before its first change resumes from here.
      const where = positionsText(stream.positions);
      write(stream, `retry: 2000\n${frame('connected', { connectionId: stream.id, topics: input.topics.map(topicText) }, where)}`);
      if (reset) write(stream, frame('reset', {}, where));
      if (input.expiresAt !== undefined) {
        stream.expiry = setTimeout(() => end(stream, 'expired'), Math.max(0, input.expiresAt - Date.now()));
      }
      await catchUp(stream);
      return stream.id;
    },

    /** Changes a stream's topics; false when there is no such stream of this principal's. */
    retopic(id: string, principal: Principal, topics: Topic[]): boolean {
      const stream = streams.get(id);
      if (!stream || principalKey(stream.principal) !== principalKey(principal)) return false;
      watch(stream, topics);
      return true;
    },

    /** Ends every stream with `reconnect`: the replica is stopping, its clients go elsewhere first. */
    drain() {
      for (const stream of [...streams.values()]) end(stream, 'reconnect');
    },

    /** Resolves once the tail is known; 503 when it is not within a few seconds. */
    whenReady: () => waitForTail(),

    count: () => streams.size,

    async stop() {
      stopped = true;
      clearInterval(heartbeat);
      unsubscribe?.();
      for (const stream of [...streams.values()]) end(stream, 'reconnect');
      options.reader.disconnect();
      await loop;
    },
  };
}

export type Hub = ReturnType<typeof createHub>;

/** What the rules know of a reader: readers with the same key see the same of every record. */
function callerKey(principal: Principal): string {
  if (principal.kind !== 'user') return principal.kind;
  return `${principal.id}|${actsAsAdmin(principal) ? 'admin' : 'user'}|${(principal.amr ?? []).join(',')}`;
}

export const topicText = (topic: Topic) => (topic.recordId ? `${topic.resource}/${topic.recordId}` : topic.resource);

/** Who a stream belongs to, for its limits and for who may change its topics. */
export function principalKey(principal: Principal): string | null {
  if (principal.kind === 'user') return `u:${principal.id}`;
  if (principal.kind === 'master') return 'master';
  return null;
}
