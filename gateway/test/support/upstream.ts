import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { PRINCIPAL_HEADER, verifyPrincipal } from '@restgate/shared';

/** What a test upstream received, as it arrived on the wire. */
export interface ReceivedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

export type Responder = (received: ReceivedRequest, res: http.ServerResponse) => void;

export interface TestUpstream {
  url: string;
  received: ReceivedRequest[];
  /** The last request that was not a /health probe. */
  last(): ReceivedRequest;
  close(): Promise<void>;
}

/** Answers 200 with a small JSON body that names the request. */
export const echo: Responder = (received, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ echoed: `${received.method} ${received.url}` }));
};

/** Never answers: for the gateway's upstream timeout. */
export const hang: Responder = () => undefined;

/**
 * A real HTTP server on loopback standing in for one of OUR services at the gateway layer:
 * it records every request (method, path, headers, body bytes) and answers with `respond`.
 */
export async function startUpstream(respond: Responder = echo): Promise<TestUpstream> {
  const received: ReceivedRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) };
      if (request.url === '/health') {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
        return;
      }
      received.push(request);
      respond(request, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    last: () => {
      const request = received.at(-1);
      if (!request) throw new Error('the upstream received no request');
      return request;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A loopback URL where nothing listens: connections are refused at once. */
export async function refusingUrl(): Promise<string> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

/**
 * An address that takes no new connection and refuses none, like one whose replica just went:
 * a listener with a full accept queue, so the kernel drops each new SYN and a connect waits. Node
 * accepts whatever it listens on, so the listener is a Python process that never calls accept.
 */
export async function silentUrl(): Promise<{ url: string; close: () => void }> {
  const script = [
    'import socket, sys',
    "s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen(0)",
    'port = s.getsockname()[1]',
    // One connection fills a backlog of 0; a second, not waited for, makes sure: the next SYN is dropped.
    'fill = [socket.create_connection((\'127.0.0.1\', port))]',
    'extra = socket.socket(); extra.setblocking(False); extra.connect_ex((\'127.0.0.1\', port))',
    'print(port, flush=True)',
    'sys.stdin.read()',
  ].join('\n');
  const child = spawn('python3', ['-c', script], { stdio: ['pipe', 'pipe', 'inherit'] });
  const port = await new Promise<string>((resolve, reject) => {
    child.once('error', reject);
    child.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString().trim()));
  });
  return { url: `http://127.0.0.1:${port}`, close: () => child.kill() };
}

/** The principal the gateway signed for `received`, verified the way a service does. */
export function principalOf(received: ReceivedRequest, secret: string): ReturnType<typeof verifyPrincipal> {
  const header = received.headers[PRINCIPAL_HEADER];
  return verifyPrincipal(typeof header === 'string' ? header : undefined, secret, received.method, received.url.split('?')[0] ?? '/');
}
