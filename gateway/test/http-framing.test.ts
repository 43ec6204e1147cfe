import net from 'node:net';
import type { AddressInfo } from 'node:net';
import http from 'node:http';
import { startGateway, type TestGateway } from './support/gateway';
import { startUpstream, type TestUpstream } from './support/upstream';

let upstream: TestUpstream;
let gateway: TestGateway;
let server: http.Server;

beforeAll(async () => {
  upstream = await startUpstream();
  gateway = startGateway({ IDENTITY_URL: upstream.url, ARTICLES_URL: upstream.url });
  server = http.createServer(gateway.app).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
});

afterAll(async () => {
  gateway.close();
  await new Promise((resolve) => server.close(resolve));
  await upstream.close();
});

/** Sends `head` as is (supertest would normalise the request target); the answer, up to the close `Connection: close` asks for. */
function raw(head: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect((server.address() as AddressInfo).port, '127.0.0.1', () => socket.write(head));
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')));
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
  });
}

describe('the request line and its connection', () => {
  test('when it is in absolute form, then it is the 404 of an unknown path and nothing is forwarded', async () => {
    const before = upstream.received.length;

    const answer = await raw('GET http://example.test/articles HTTP/1.1\r\nHost: example.test\r\nConnection: close\r\n\r\n');

    expect(answer).toMatch(/^HTTP\/1\.1 404 /);
    expect(answer).toContain('"code":"route_not_found"');
    expect(upstream.received.length).toBe(before);
  });

  test('when the client sends Connection: close, then the proxied answer says close and the connection ends with it', async () => {
    const before = upstream.received.length;

    const answer = await raw('GET /articles HTTP/1.1\r\nHost: example.test\r\nConnection: close\r\n\r\n');

    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    expect(answer).toMatch(/\r\nconnection: close\r\n/i);
    expect(answer).not.toMatch(/\r\nkeep-alive:/i);
    expect(upstream.received.length).toBe(before + 1);
  });

  test('when the path has a malformed %-escape, then it is the 404 problem of an unknown path with a request id, and the gateway serves on', async () => {
    const answer = await raw('GET /articles/%E0%A4%A HTTP/1.1\r\nHost: example.test\r\nConnection: close\r\n\r\n');
    const next = await raw('GET /articles HTTP/1.1\r\nHost: example.test\r\nConnection: close\r\n\r\n');

    expect(answer).toMatch(/^HTTP\/1\.1 404 /);
    expect(answer).toMatch(/\r\nx-request-id: \S+\r\n/i);
    expect(answer).toContain('"code":"route_not_found"');
    expect(next).toMatch(/^HTTP\/1\.1 200 /);
  });

  test('when the method is QUERY, which no route takes, then a known path is the 405 problem with Allow', async () => {
    const answer = await raw('QUERY /articles HTTP/1.1\r\nHost: example.test\r\nConnection: close\r\n\r\n');

    expect(answer).toMatch(/^HTTP\/1\.1 405 /);
    expect(answer).toMatch(/\r\nallow: [A-Z, ]+\r\n/i);
    expect(answer).toContain('"code":"method_not_allowed"');
  });
});
