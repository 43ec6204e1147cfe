import http from 'node:http';
import net from 'node:net';
import express from 'express';
import request from 'supertest';
import { createLogger } from '@restgate/shared';
import { createHttpApp, listen, type RunningServer } from '@restgate/shared/http';
import { markStopping } from '@restgate/shared/testing';

const silent = createLogger({ name: 'ops-test', level: 'silent' });

/** An app with `GET /slow`, which answers only when the test calls `release()`. */
function slowService(): { start: () => Promise<RunningServer>; arrived: Promise<void>; release: () => void } {
  let markArrived!: () => void;
  const arrived = new Promise<void>((resolve) => {
    markArrived = resolve;
  });
  let answer: (() => void) | undefined;
  // The slow route in front of the shared bootstrap (which ends in its 404).
  const app = express();
  app.get('/slow', (_req, res) => {
    answer = () => res.json({ done: true });
    markArrived();
  });
  app.use(createHttpApp({ logger: silent }));
  return { start: () => listen(app, 0, '127.0.0.1'), arrived, release: () => answer?.() };
}

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

function get(url: string, agent: http.Agent): Promise<Answer> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      })
      .on('error', reject);
  });
}

function connects(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

// The stop bounds below are far above jest's 30 s test timeout: a stop that waited for them
// (instead of for the requests) fails the test by timing out.
const LONG_BOUND_MS = 120_000;

describe('graceful stop', () => {
  let agent: http.Agent;
  beforeEach(() => {
    agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  });
  afterEach(() => agent.destroy());

  test('when stopped during a request on a keep-alive connection, then it refuses new connections, the request completes, and the stop ends right after', async () => {
    const service = slowService();
    const running = await service.start();
    const answer = get(`${running.url}/slow`, agent);
    await service.arrived;

    const stopped = running.stop(LONG_BOUND_MS);
    const acceptsDuringStop = await connects(running.port);
    service.release();
    const res = await answer;
    const cutOff = await stopped;

    expect(acceptsDuringStop).toBe(false);
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toEqual({ done: true });
    expect(res.headers.connection).toBe('close');
    expect(cutOff).toBe(0);
  });

  test('when an idle keep-alive connection is open, then it does not hold the stop', async () => {
    const service = slowService();
    const running = await service.start();
    const res = await get(`${running.url}/health`, agent);
    expect(res.headers.connection).toBe('keep-alive');

    const cutOff = await running.stop(LONG_BOUND_MS);

    expect(cutOff).toBe(0);
  });

  test('when a request outlives the bound, then it is cut off and the stop ends', async () => {
    const service = slowService();
    const running = await service.start();
    const answer = get(`${running.url}/slow`, agent).then(
      () => 'answered',
      (err: NodeJS.ErrnoException) => err.code,
    );
    await service.arrived;

    const cutOff = await running.stop(100);

    expect(cutOff).toBe(1);
    expect(await answer).toBe('ECONNRESET');
  });

  test('when stopped with a drain delay, then /ready is 503 at once, new and idle keep-alive connections are still served with Connection: close, and the stop ends after the delay', async () => {
    // Arrange: a keep-alive connection, idle when the stop begins
    const app = createHttpApp({ logger: silent, readiness: [{ name: 'mongodb', check: async () => undefined }] });
    const running = await listen(app, 0, '127.0.0.1');
    expect((await get(`${running.url}/health`, agent)).headers.connection).toBe('keep-alive');
    const DELAY_MS = 1_000;

    // Act
    const began = Date.now();
    const stopped = running.stop(LONG_BOUND_MS, { drainDelayMs: DELAY_MS }).then(() => Date.now() - began);
    const ready = await get(`${running.url}/ready`, new http.Agent({ keepAlive: true }));
    const onIdle = await get(`${running.url}/health`, agent);
    const onNew = await get(`${running.url}/health`, new http.Agent({ keepAlive: true }));
    const acceptsDuringDelay = await connects(running.port);
    const took = await stopped;

    // Assert
    expect(ready.status).toBe(503);
    expect(JSON.parse(ready.body)).toMatchObject({ status: 'stopping' });
    expect(ready.headers.connection).toBe('close');
    expect([onIdle.status, onIdle.headers.connection]).toEqual([200, 'close']);
    expect([onNew.status, onNew.headers.connection]).toEqual([200, 'close']);
    expect(acceptsDuringDelay).toBe(true);
    expect(took).toBeGreaterThanOrEqual(DELAY_MS - 20);
    expect(await connects(running.port)).toBe(false);
  });

  test('when stopped with a drain delay during a slow request, then the request still completes after the delay and nothing is cut off', async () => {
    const service = slowService();
    const running = await service.start();
    const answer = get(`${running.url}/slow`, agent);
    await service.arrived;

    const stopped = running.stop(LONG_BOUND_MS, { drainDelayMs: 300 });
    await new Promise((resolve) => setTimeout(resolve, 500));
    service.release();
    const res = await answer;

    expect([res.status, res.headers.connection]).toEqual([200, 'close']);
    expect(await stopped).toBe(0);
  });

  test('when a stop has begun, then /ready answers 503 stopping and still names each check', async () => {
    const app = createHttpApp({ logger: silent, readiness: [{ name: 'mongodb', check: async () => undefined }] });
    await request(app).get('/ready').expect(200);

    markStopping(app);
    const res = await request(app).get('/ready');
    const health = await request(app).get('/health');

    expect(res.status).toBe(503);
    expect(res.body).toEqual({ status: 'stopping', checks: { mongodb: 'up' } });
    expect(health.status).toBe(200);
  });
});
