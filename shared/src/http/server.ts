import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RequestListener } from 'node:http';
import type { Logger } from 'pino';
import { markStopping } from '../health';

export interface RunningServer {
  server: Server;
  port: number;
  url: string;
  /**
   * Stops gracefully: `/ready` turns 503, no new connections, in-flight requests finish (their
   * keep-alive connections close after the answer), idle connections close at once. Whatever is
   * still running after `timeoutMs` is cut off. Resolves with the number of requests cut off.
   *
   * With `drainDelayMs`, `/ready` turns 503 at once but the rest waits that long: meanwhile the
   * server accepts and serves as usual, every answer closing its connection, so a load balancer
   * that has not yet seen the 503 (or a pool holding an idle connection) loses no request to a
   * refused or reset connection.
   */
  stop: (timeoutMs?: number, options?: { drainDelayMs?: number }) => Promise<number>;
}

export interface ListenLimits {
  /** Headers and body must arrive within this (Node answers 408 past it); default 30 s. */
  requestTimeoutMs?: number;
  /** Connections open at once; further ones are closed at accept. */
  maxConnections?: number;
}

/** Listens and resolves once the port is bound. Keep-alive outlives the gateway's idle sockets. */
export function listen(app: RequestListener, port: number, host: string, limits: ListenLimits = {}): Promise<RunningServer> {
  return new Promise((resolve, reject) => {
    const requestTimeout = limits.requestTimeoutMs ?? 30_000;
    // Node's default is 300 s: a slow body would hold a socket (and a slot) for minutes.
    // Checked every second, so the cut comes close to the bound (Node checks every 30 s by default).
    const server = createServer(
      { requestTimeout, headersTimeout: Math.min(66_000, requestTimeout), connectionsCheckingInterval: 1_000 },
      app,
    );
    server.keepAliveTimeout = 65_000;
    if (limits.maxConnections) server.maxConnections = limits.maxConnections;
    const requests = trackRequests(server);
    server.once('error', reject);
    server.listen(port, host, () => {
      const address = server.address() as AddressInfo;
      let stopping: Promise<number> | undefined;
      resolve({
        server,
        port: address.port,
        url: `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`,
        stop: (timeoutMs = 10_000, { drainDelayMs = 0 } = {}) => {
          markStopping(app);
          stopping ??= (async () => {
            if (drainDelayMs > 0) {
              requests.closeAfterEachAnswer();
              await new Promise((resolve) => setTimeout(resolve, drainDelayMs));
            }
            return requests.drain(timeoutMs);
          })();
          return stopping;
        },
      });
    });
  });
}

/**
 * Follows the responses in progress so a stop can wait for them. `server.close()` alone waits for
 * every keep-alive connection to time out (65 s here): a connection that was busy when the stop
 * began would hold the process long after its answer went out.
 */
function trackRequests(server: Server): { closeAfterEachAnswer: () => void; drain: (timeoutMs: number) => Promise<number> } {
  const inFlight = new Set<ServerResponse>();
  let stopping = false;
  let closeAfterAnswer = false;
  // Idle once the answer is written: close it then (on the next tick, when Node has marked it idle).
  const closeWhenIdle = () => setImmediate(() => server.closeIdleConnections());

  // First listener, so the header is set before the app can answer.
  server.prependListener('request', (_req, res: ServerResponse) => {
    if (closeAfterAnswer) endsConnection(res);
    inFlight.add(res);
    res.once('close', () => {
      inFlight.delete(res);
      if (stopping) closeWhenIdle();
    });
  });

  /**
   * From now on each answer ends its connection (Node closes it once the answer is sent), and the
   * client learns it from the header. Idle connections stay open: closing one could race with a
   * request its client is sending on it right now.
   */
  function closeAfterEachAnswer(): void {
    closeAfterAnswer = true;
    for (const res of inFlight) if (!res.headersSent) endsConnection(res);
  }

  const drain = (timeoutMs: number) =>
    new Promise<number>((resolve) => {
      stopping = true;
      closeAfterEachAnswer();
      let cutOff = 0;
      const timer = setTimeout(() => {
        cutOff = inFlight.size;
        server.closeAllConnections();
      }, timeoutMs);
      timer.unref();
      server.close(() => {
        clearTimeout(timer);
        resolve(cutOff);
      });
      server.closeIdleConnections();
    });

  return { closeAfterEachAnswer, drain };
}

/**
 * Makes `res` the last answer on its connection. `shouldKeepAlive` is what Node (and the gateway's
 * proxy, which must not pass on its upstream's Connection header) decide by; the header tells the
 * client. An app that sets `Connection: keep-alive` itself would still override both.
 */
function endsConnection(res: ServerResponse): void {
  res.shouldKeepAlive = false;
  res.setHeader('Connection', 'close');
}

/**
 * Runs `stop` once on SIGINT or SIGTERM, then exits 0 (1 if stopping failed or took longer than
 * `timeoutMs`). A second signal while stopping exits 1 at once.
 */
export function stopOnSignals(stop: () => Promise<void>, logger: Logger, options: { timeoutMs?: number } = {}): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal while stopping: exiting now');
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal }, 'stopping');
    if (options.timeoutMs !== undefined) {
      setTimeout(() => {
        logger.error({ timeoutMs: options.timeoutMs }, 'stop took too long: exiting now');
        process.exit(1);
      }, options.timeoutMs).unref();
    }
    stop().then(
      () => {
        logger.info('stopped');
        process.exit(0);
      },
      (err: unknown) => {
        logger.error({ err }, 'stop failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}
