import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A stand-in for one of our services behind a gateway process, on loopback: `/health` answers 200
 * (or 503 while the test says it is unhealthy);
 * every other request is held until the test says how to answer, so a test can keep a request
 * in flight for exactly as long as it needs.
 */
export interface LoopbackUpstream {
  url: string;
  /** Resolves with the path of the next request that arrives (not /health). */
  nextRequest(): Promise<string>;
  /** Answers every held request, and from now on every new one at once, with 200 `{ from: 'upstream' }`. */
  answerAll(): void;
  /** Holds every request from now on, never answering. */
  holdAll(): void;
  /** Makes `/health` answer 200 (true) or 503 (false) from now on. */
  setHealthy(healthy: boolean): void;
  /** Stops listening and drops every connection (the gateway's pooled ones included). */
  close(): Promise<void>;
}

export async function startLoopbackUpstream(): Promise<LoopbackUpstream> {
  const held = new Set<http.ServerResponse>();
  let waiters: Array<(path: string) => void> = [];
  let answering = false;
  let healthy = true;
  const answer = (res: http.ServerResponse) => {
    held.delete(res);
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ from: 'upstream' }));
  };
  const server = http.createServer((req, res) => {
    req.resume();
    if (req.url === '/health') {
      res.writeHead(healthy ? 200 : 503, { 'content-type': 'application/json' }).end(healthy ? '{"status":"ok"}' : '{"status":"down"}');
      return;
    }
    for (const wake of waiters) wake(req.url ?? '');
    waiters = [];
    if (answering) answer(res);
    else held.add(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    nextRequest: () => new Promise((resolve) => waiters.push(resolve)),
    answerAll: () => {
      answering = true;
      for (const res of [...held]) answer(res);
    },
    holdAll: () => {
      answering = false;
    },
    setHealthy: (value) => {
      healthy = value;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
