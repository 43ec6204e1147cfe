/**
 * `/health`, `/ready` and `/metrics` at the gateway are the gateway's own: whatever the method,
 * the credential or a future policy row, they never reach a service.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { PRINCIPAL_HEADER } from '@restgate/shared';
import { OPERATIONS_PATHS } from '@restgate/shared/http';
import { createPolicyLookup } from '../../gateway/src/policy';
import { POLICY_ROWS } from '../../gateway/test/support/routes';
import { startGateway, type TestGateway } from '../../gateway/test/support/gateway';
import { TEST_MASTER_KEY } from '../../gateway/test/support/tokens';

interface RecordingUpstream {
  url: string;
  /** Requests the gateway forwarded (they carry its signed principal; its own /health probes do not). */
  forwarded: string[];
  close(): Promise<void>;
}

async function startRecordingUpstream(): Promise<RecordingUpstream> {
  const forwarded: string[] = [];
  const server = http.createServer((req, res) => {
    req.resume();
    if (req.headers[PRINCIPAL_HEADER] !== undefined) forwarded.push(`${req.method} ${req.url}`);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    forwarded,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

const METRICS_TOKEN = 'ops-metrics-token-0f1e2d3c4b5a69788796a5b4c3d2e1f0';

let identity: RecordingUpstream;
let articles: RecordingUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  identity = await startRecordingUpstream();
  articles = await startRecordingUpstream();
  gateway = startGateway({ IDENTITY_URL: identity.url, ARTICLES_URL: articles.url, METRICS_TOKEN });
});

afterAll(async () => {
  gateway.close();
  await Promise.all([identity.close(), articles.close()]);
});

describe('operations paths at the gateway', () => {
  test('when the policy table is asked for them, then no row matches (so none could be proxied)', () => {
    const lookup = createPolicyLookup(POLICY_ROWS);

    for (const path of OPERATIONS_PATHS) {
      for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) {
        expect(lookup.find(method, path)).toBeUndefined();
        expect(lookup.refusal(method, path).message).toMatch(/No route for/);
      }
    }
  });

  test.each(OPERATIONS_PATHS.flatMap((path) => (['get', 'post', 'put', 'delete'] as const).map((method) => [method, path] as const)))(
    'when a client sends %s %s, with or without credentials, then no service receives it',
    async (method, path) => {
      await request(gateway.app)[method](path).query({ access_token: TEST_MASTER_KEY });
      await request(gateway.app)[method](path).set('Authorization', `Bearer ${METRICS_TOKEN}`);
      await request(gateway.app)[method](path);

      expect([...identity.forwarded, ...articles.forwarded]).toEqual([]);
    },
  );

  test('when a routed path is asked, then the upstream records it as forwarded (the check above can fail)', async () => {
    await request(gateway.app).get('/articles/0123456789abcdef01234567');

    expect(articles.forwarded.splice(0)).toEqual(['GET /articles/0123456789abcdef01234567']);
  });

  test("when /metrics is asked with the token, then the gateway's own series answer", async () => {
    const res = await request(gateway.app).get('/metrics').set('Authorization', `Bearer ${METRICS_TOKEN}`);

    expect(res.status).toBe(200);
    expect(res.text).toMatch(/^# TYPE http_requests_total counter$/m);
  });

  test('when /metrics is asked with the master key as access_token, then it is a 404 (only the metrics token opens it)', async () => {
    const res = await request(gateway.app).get('/metrics').query({ access_token: TEST_MASTER_KEY });

    expect(res.status).toBe(404);
  });
});
