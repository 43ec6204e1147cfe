import http from 'node:http';
import request from 'supertest';
import { listen } from '@restgate/shared/http';
import { startGateway } from './support/gateway';
import { startUpstream, type TestUpstream } from './support/upstream';

/**
 * The gateway stops as every process does (shared's listen, run by runService on SIGTERM):
 * `/ready` turns 503 at once, what is in flight is answered, within SHUTDOWN_TIMEOUT_MS, and the
 * connections close once idle.
 */
describe('graceful stop of the gateway', () => {
  let release: () => void = () => undefined;
  let arrived: Promise<void>;
  let upstream: TestUpstream;

  beforeEach(async () => {
    let markArrived: () => void = () => undefined;
    arrived = new Promise<void>((resolve) => (markArrived = resolve));
    upstream = await startUpstream((_received, res) => {
      markArrived();
      release = () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"done":true}');
      };
    });
  });
  afterEach(() => upstream.close());

  test('when a stop begins during a proxied request, then /ready says stopping, the request is answered with Connection: close, and nothing is cut off', async () => {
    const gateway = startGateway({ IDENTITY_URL: upstream.url, ARTICLES_URL: upstream.url });
    const running = await listen(gateway.app, 0, '127.0.0.1');
    const agent = new http.Agent({ keepAlive: true });
    try {
      const answer = new Promise<{ status: number; connection: string | undefined; body: string }>((resolve, reject) => {
        http
          .get(`${running.url}/articles`, { agent }, (res) => {
            let body = '';
            res.setEncoding('utf8');
            res.on('data', (chunk: string) => (body += chunk));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, body }));
          })
          .on('error', reject);
      });
      await arrived;

      const stopped = running.stop(60_000);
      const ready = await request(gateway.app).get('/ready');
      release();
      const res = await answer;

      expect(ready.status).toBe(503);
      expect(ready.body.status).toBe('stopping');
      expect(res).toEqual({ status: 200, connection: 'close', body: '{"done":true}' });
      expect(await stopped).toBe(0);
    } finally {
      agent.destroy();
      gateway.close();
    }
  });
});
