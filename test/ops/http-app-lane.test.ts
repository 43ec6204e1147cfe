import { IncomingMessage, ServerResponse } from 'node:http';
import request from 'supertest';
import { createHttpApp, createMetrics, errors, labelRoute, type Lane } from '@restgate/shared';
import { capturingLogger } from '@restgate/shared/testing';

/**
 * A lane serves the requests it claims outside Express (the gateway's proxied routes): these
 * check that it really does, and that its requests get what every request gets in Express.
 */
function anAppWithLane(serve: Lane['serve']) {
  const { logger, lines } = capturingLogger();
  const metrics = createMetrics();
  const seen: { req: IncomingMessage; res: ServerResponse }[] = [];
  const lane: Lane = {
    claims: (req) => req.url?.startsWith('/lane/') ?? false,
    serve: async (req, res) => {
      seen.push({ req, res });
      labelRoute(req, '/lane/:name');
      await serve(req, res);
    },
  };
  const app = createHttpApp({ logger, metrics, lane });
  return { app, lines, metrics, seen };
}

describe('an app with a lane', () => {
  test('when a request is claimed, then the lane serves it with node:http objects Express never touched', async () => {
    const { app, seen } = anAppWithLane(async (_req, res) => {
      res.setHeader('Content-Type', 'application/json');
      res.end('{"served":"lane"}');
    });

    const res = await request(app).get('/lane/a');

    expect(res.status).toBe(200);
    expect(res.body).toEqual({ served: 'lane' });
    expect(seen).toHaveLength(1);
    // Express swaps these prototypes for its own on every request it dispatches.
    expect(Object.getPrototypeOf(seen[0]!.req)).toBe(IncomingMessage.prototype);
    expect(Object.getPrototypeOf(seen[0]!.res)).toBe(ServerResponse.prototype);
  });

  test('when a request is claimed, then it gets the request id, the security headers, the access line and the HTTP series', async () => {
    const { app, lines, metrics } = anAppWithLane(async (_req, res) => {
      res.statusCode = 204;
      res.end();
    });

    const res = await request(app).get('/lane/b?access_token=secret-value').set('X-Request-Id', 'lane-id-1');

    expect(res.status).toBe(204);
    expect(res.headers['x-request-id']).toBe('lane-id-1');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['content-security-policy']).toContain("default-src 'self'");
    expect(lines().find((l) => l.msg === 'request completed')).toMatchObject({
      requestId: 'lane-id-1',
      req: { method: 'GET', url: '/lane/b?access_token=[redacted]' },
      res: { statusCode: 204 },
    });
    expect(await metrics.render()).toContain('http_request_duration_seconds_count{method="GET",route="/lane/:name",status="204"} 1');
  });

  test('when the lane throws a problem, then it is answered as problem+json with the request id', async () => {
    const { app } = anAppWithLane(async () => {
      throw errors.forbidden('Not for you.');
    });

    const res = await request(app).get('/lane/c');

    expect(res.status).toBe(403);
    expect(res.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(res.body).toMatchObject({ status: 403, code: 'forbidden', detail: 'Not for you.', requestId: res.headers['x-request-id'] });
  });

  test('when the lane fails unexpectedly, then the client gets a 500 problem without the message and the log has it', async () => {
    const { app, lines } = anAppWithLane(async () => {
      throw new Error('lane broke: internal detail');
    });

    const res = await request(app).get('/lane/d');

    expect(res.status).toBe(500);
    expect(JSON.stringify(res.body)).not.toContain('internal detail');
    expect(res.body).toMatchObject({ status: 500, requestId: res.headers['x-request-id'] });
    expect(lines().find((l) => l.msg === 'request failed')).toMatchObject({ requestId: res.headers['x-request-id'], err: { message: 'lane broke: internal detail' } });
  });

  test('when a HEAD request fails in the lane, then the problem has its headers and no body', async () => {
    const { app } = anAppWithLane(async () => {
      throw errors.forbidden();
    });

    const res = await request(app).head('/lane/e');

    expect(res.status).toBe(403);
    expect(res.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(res.text ?? '').toBe('');
  });

  test('when a request is not claimed, then Express serves it (operations paths, the 404 problem)', async () => {
    const { app, seen } = anAppWithLane(async () => {
      throw new Error('must not be called');
    });

    const health = await request(app).get('/health');
    const missing = await request(app).get('/elsewhere');

    expect(health.status).toBe(200);
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ code: 'route_not_found' });
    expect(seen).toHaveLength(0);
  });
});
