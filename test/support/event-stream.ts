/**
 * An event-stream client for the contract tests: the `eventsource` package (what a Node client of
 * the API uses), with headers set through its `fetch` option. It collects every frame it receives.
 */
import { EventSource } from 'eventsource';

export interface Frame {
  type: string;
  /** The frame's `id:` (its positions), or '' when it had none. */
  lastEventId: string;
  data: any;
  at: number;
}

export interface OpenedStream {
  frames: Frame[];
  /** Frames whose type is one of the resource change types. */
  changes(resource?: string): Frame[];
  /** Waits until `predicate` holds of the frames (rejects after `timeoutMs`). */
  waitFor(predicate: (frames: Frame[]) => boolean, timeoutMs?: number): Promise<void>;
  /** The last `id:` received: what a reconnect sends as Last-Event-ID. */
  lastEventId(): string;
  connectionId(): string | undefined;
  /** Stops it (no reconnect). */
  close(): void;
  /** Whether it is closed for good (an error answer on connect, or close()). */
  closed(): boolean;
}

export const CONTROL_EVENTS = ['connected', 'reset', 'revoked', 'expired', 'overflow', 'reconnect'];

/** Opens `GET <base>/realtime?...` with `headers`; `resources` names the change types to listen for. */
export function openStream(
  base: string,
  options: { query: Record<string, string>; headers?: Record<string, string>; resources?: string[] },
): OpenedStream {
  const url = new URL('/realtime', base);
  for (const [key, value] of Object.entries(options.query)) url.searchParams.set(key, value);
  const frames: Frame[] = [];
  let last = '';
  const source = new EventSource(url, {
    fetch: (input, init) => fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), ...options.headers } }),
  });
  const types = [
    ...CONTROL_EVENTS,
    ...(options.resources ?? ['articles', 'users']).flatMap((r) => [`${r}.created`, `${r}.updated`, `${r}.deleted`]),
  ];
  for (const type of types) {
    source.addEventListener(type, (event) => {
      if (event.lastEventId) last = event.lastEventId;
      frames.push({ type, lastEventId: event.lastEventId, data: JSON.parse(event.data), at: Date.now() });
    });
  }
  // Let it reconnect on its own after a stream ends, unless that answer is an error.
  source.onerror = () => undefined;
  return {
    frames,
    changes: (resource) => frames.filter((f) => !CONTROL_EVENTS.includes(f.type) && (!resource || f.type.startsWith(`${resource}.`))),
    async waitFor(predicate, timeoutMs = 10_000) {
      const until = Date.now() + timeoutMs;
      while (!predicate(frames)) {
        if (Date.now() > until)
          throw new Error(`the stream did not get there in ${timeoutMs} ms; frames: ${JSON.stringify(frames.map((f) => f.type))}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    lastEventId: () => last,
    connectionId: () => frames.find((f) => f.type === 'connected')?.data.connectionId,
    close: () => source.close(),
    closed: () => source.readyState === EventSource.CLOSED,
  };
}
