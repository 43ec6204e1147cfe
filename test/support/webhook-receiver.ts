import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
}

/** How the receiver answers one request: a status (and headers, body), or never (`hang`). */
export type Answer = { status: number; headers?: Record<string, string>; body?: string | Buffer } | 'hang';

/**
 * A webhook receiver, a real HTTP server (on loopback unless told otherwise): it records every
 * request and answers as the test says, per path (`/a`, `/b`: one receiver serves several
 * endpoints).
 */
export interface Receiver {
  url(path: string): string;
  received(path?: string): Received[];
  /** Answers the next requests of `path` with `answers` in turn, then with the default (200). */
  answer(path: string, ...answers: Answer[]): void;
  /** Waits until `count` requests of `path` have come (fails after `timeoutMs`). */
  waitFor(path: string, count: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

/** `host`: where it listens (loopback unless a container must reach it). */
export async function startReceiver(host = '127.0.0.1'): Promise<Receiver> {
  const log: Received[] = [];
  const queued = new Map<string, Answer[]>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      log.push({ path, headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() });
      const answer = queued.get(path)?.shift() ?? { status: 200, body: 'ok' };
      if (answer === 'hang') return;
      res.writeHead(answer.status, answer.headers ?? {}).end(answer.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  const received = (path?: string) => log.filter((r) => path === undefined || r.path === path);
  return {
    url: (path) => `http://${host.includes(':') ? `[${host}]` : host}:${port}${path}`,
    received,
    answer: (path, ...answers) => queued.set(path, [...(queued.get(path) ?? []), ...answers]),
    async waitFor(path, count, timeoutMs = 10_000) {
      const until = Date.now() + timeoutMs;
      while (received(path).length < count) {
        if (Date.now() > until) throw new Error(`${path}: ${received(path).length} of ${count} requests came within ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return received(path);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
