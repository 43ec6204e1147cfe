import { createLogger } from '@restgate/shared';
import request from 'supertest';
import { createIdentity } from '../src/identity';
import { MASTER, expectProblem, startIdentity, type IdentityHarness } from './support/identity-harness';

describe('the identity app', () => {
  let h: IdentityHarness;
  beforeAll(async () => {
    h = await startIdentity();
  });
  afterAll(() => h.close());

  test('when /health and /ready are asked, then both answer 200 with MongoDB up', async () => {
    const health = await request(h.app).get('/health');
    const ready = await request(h.app).get('/ready');

    expect(health.status).toBe(200);
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ready', checks: { mongodb: 'up', redis: 'up' } });
  });

  test('when a route does not exist, then 404 problem+json with the request id echoed', async () => {
    const res = await request(h.app).get('/nope').set('X-Request-Id', 'req-123');

    expectProblem(res, 404);
    expect(res.headers['x-request-id']).toBe('req-123');
    expect(res.body.requestId).toBe('req-123');
  });

  test('when a method is not served on /users/me, then 405 with Allow', async () => {
    const res = await h.call('post', '/users/me', MASTER);

    expectProblem(res, 405);
    expect(res.headers.allow).toContain('GET');
  });

  test('when a body is neither a form nor JSON, then 415', async () => {
    const res = await h.call('post', '/users', MASTER).set('content-type', 'text/plain').send('email=a@b.co');

    expectProblem(res, 415);
  });

  test('when MongoDB does not answer, then /ready is 503', async () => {
    // The service as start.ts builds it, pointed at a port where no database listens.
    const config = { ...h.config, MONGODB_URL: 'mongodb://127.0.0.1:9', MONGODB_DB: 'identity_unreachable' };
    const identity = createIdentity({ config, logger: createLogger({ name: 'identity-test', level: 'silent' }) });
    await identity.whenReady();

    const res = await request(identity.app).get('/ready');
    await identity.stop();

    expect(res.status).toBe(503);
    expect(res.body.checks).toEqual({ mongodb: 'down', redis: 'up' });
  });
});
