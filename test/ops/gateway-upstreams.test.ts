/**
 * The gateway as a process in front of loopback upstreams the test controls: failures of an
 * upstream give fast problems and leave the gateway healthy; SIGTERM lets a request in flight
 * finish before the process exits 0.
 */
import http from 'node:http';
import net from 'node:net';
import { aSecret, call, startProcess, tempDir, waitForLogLine, waitForStatus, type RunningProcess } from './support/processes';
import { readRegistry, routedServices } from '../../gateway/src/registry';
import { startLoopbackUpstream, type LoopbackUpstream } from './support/loopback-upstream';

const ROUTED = routedServices(readRegistry());

/** /ready's checks with every routed service of the registry up, and Redis, but for `overrides`. */
const checks = (overrides: Record<string, string> = {}) => ({
  ...Object.fromEntries(ROUTED.map((s) => [s.name, 'up'])),
  redis: 'up',
  revocations: 'up',
  ...overrides,
});

const UPSTREAM_TIMEOUT_MS = 1_000;
const logs = tempDir('gateway');
afterAll(() => logs.cleanup());

function gatewayEnv(identity: LoopbackUpstream, articles: LoopbackUpstream, extra: Record<string, string> = {}): Record<string, string> {
  return {
    MASTER_KEY: aSecret(),
    JWT_SECRET: aSecret(),
    PRINCIPAL_SECRET: aSecret(),
    // Every routed service but identity (a generated resource, say) is served by `articles`.
    ...Object.fromEntries(ROUTED.filter((s) => s.name !== 'identity').map((s) => [s.urlEnv, articles.url])),
    IDENTITY_URL: identity.url,
    ...extra,
  };
}

describe('gateway in front of failing upstreams', () => {
  let identity: LoopbackUpstream;
  let articles: LoopbackUpstream;
  let gateway: RunningProcess;

  beforeAll(async () => {
    identity = await startLoopbackUpstream();
    articles = await startLoopbackUpstream();
    articles.answerAll();
    gateway = await startProcess({
      name: 'gateway-failures',
      dir: 'gateway',
      env: gatewayEnv(identity, articles, { UPSTREAM_TIMEOUT_MS: String(UPSTREAM_TIMEOUT_MS) }),
      logDir: logs.dir,
    });
  });

  afterAll(async () => {
    await gateway?.stop();
    await Promise.all([identity?.close(), articles?.close()]);
  });

  test('when an upstream hangs, then 504 once UPSTREAM_TIMEOUT_MS has passed, and the gateway stays healthy', async () => {
    const started = Date.now();
    const res = await call(`${gateway.url}/users/0123456789abcdef01234567`);
    const elapsed = Date.now() - started;

    expect(res.status).toBe(504);
    expect(res.json()).toMatchObject({ status: 504, code: 'gateway_timeout' });
    // It waited for the upstream's deadline, not less (the 5 s client deadline bounds it above).
    expect(elapsed).toBeGreaterThanOrEqual(UPSTREAM_TIMEOUT_MS - 50);
    expect((await call(`${gateway.url}/health`)).status).toBe(200);
  });

  // 502, not 504: the refused connection is the answer, nothing waits for UPSTREAM_TIMEOUT_MS.
  test('when an upstream is stopped, then 502 at once, and the gateway stays ready and healthy', async () => {
    expect((await call(`${gateway.url}/articles`)).status).toBe(200); // a pooled connection to it exists now
    expect((await call(`${gateway.url}/ready`)).status).toBe(200);

    await articles.close();
    const res = await call(`${gateway.url}/articles`);
    const ready = await call(`${gateway.url}/ready`);
    const health = await call(`${gateway.url}/health`);

    expect(res.status).toBe(502);
    expect(res.json()).toMatchObject({ status: 502, code: 'bad_gateway' });
    expect(res.text).not.toMatch(/127\.0\.0\.1|ECONNREFUSED/);
    // Ready before the upstream went, so it stays in the balancer.
    expect(ready.status).toBe(200);
    expect(health.status).toBe(200);
  });
});

describe('gateway readiness and its upstreams', () => {
  let identity: LoopbackUpstream;
  let articles: LoopbackUpstream;
  let gateway: RunningProcess;

  beforeAll(async () => {
    identity = await startLoopbackUpstream();
    articles = await startLoopbackUpstream();
    articles.answerAll();
    identity.setHealthy(false);
    gateway = await startProcess({ name: 'gateway-readiness', dir: 'gateway', env: gatewayEnv(identity, articles), logDir: logs.dir });
  });

  afterAll(async () => {
    await gateway?.stop();
    await Promise.all([identity?.close(), articles?.close()]);
  });

  test('until every upstream answers /health, then 503 naming the one that does not; once ready, an upstream down no longer makes it unready', async () => {
    const before = await call(`${gateway.url}/ready`);
    expect(before.status).toBe(503);
    expect(before.json()).toEqual({ status: 'unready', checks: checks({ identity: 'down' }) });

    identity.setHealthy(true);
    const first = await call(`${gateway.url}/ready`);
    expect(first.status).toBe(200);
    expect(first.json()).toEqual({ status: 'ready', checks: checks() });

    // Every gateway replica would see this alike: were it unready for it, the balancer would have
    // no gateway left for the other services' routes.
    identity.setHealthy(false);
    await articles.close();
    const after = await call(`${gateway.url}/ready`);
    expect(after.status).toBe(200);
    expect(after.json()).toEqual({ status: 'ready', checks: { redis: 'up', revocations: 'up' } });
    expect((await call(`${gateway.url}/articles`)).status).toBe(502);
  });
});

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

/** A GET over a keep-alive connection, the way a browser or a load balancer holds one. */
function keepAliveGet(url: string, agent: http.Agent): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

describe('gateway stopped with SIGTERM', () => {
  let identity: LoopbackUpstream;
  let articles: LoopbackUpstream;
  let agent: http.Agent;

  beforeEach(async () => {
    identity = await startLoopbackUpstream();
    articles = await startLoopbackUpstream();
    agent = new http.Agent({ keepAlive: true });
  });

  afterEach(async () => {
    agent.destroy();
    await Promise.all([identity.close(), articles.close()]);
  });

  test('when a slow request is in flight, then new connections are refused, the request completes, and the process exits 0', async () => {
    // A bound far above jest's 30 s test timeout: if the stop waited for it (say, for the client's
    // keep-alive connection to time out) instead of for the request, the test would time out.
    const gateway = await startProcess({
      name: 'gateway-sigterm',
      dir: 'gateway',
      env: gatewayEnv(identity, articles, { SHUTDOWN_TIMEOUT_MS: '120000', UPSTREAM_TIMEOUT_MS: '120000' }),
      logDir: logs.dir,
    });
    const arrived = articles.nextRequest();
    const answer = keepAliveGet(`${gateway.url}/articles`, agent);
    await arrived;

    gateway.signal('SIGTERM');
    let accepting = true;
    while (accepting) accepting = await connects(gateway.port);
    articles.answerAll();
    const res = await answer;
    const exit = await gateway.exited;

    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toEqual({ from: 'upstream' });
    expect(exit).toEqual({ code: 0, signal: null });
    const lines = gateway.logLines();
    expect(lines.find((l) => l.msg === 'stopping')).toMatchObject({ signal: 'SIGTERM' });
    expect(lines.find((l) => l.msg === 'stopped')).toBeDefined();
  });

  test('when DRAIN_DELAY_MS is set, then /ready is 503 at once, a new connection during the delay is served with Connection: close, and the process exits 0 after the delay', async () => {
    // Arrange
    const DELAY_MS = 1_500;
    const gateway = await startProcess({
      name: 'gateway-drain-delay',
      dir: 'gateway',
      env: gatewayEnv(identity, articles, { DRAIN_DELAY_MS: String(DELAY_MS) }),
      logDir: logs.dir,
    });
    articles.answerAll();
    expect((await call(`${gateway.url}/ready`)).status).toBe(200);

    // Act
    const signalled = Date.now();
    gateway.signal('SIGTERM');
    const exitedAfter = gateway.exited.then((exit) => ({ exit, ms: Date.now() - signalled }));
    const ready = await waitForStatus(`${gateway.url}/ready`, 503, 1_000);
    const readyAfter = Date.now() - signalled;
    // fetch opens a connection of its own: a new one, made after the signal
    const served = await call(`${gateway.url}/articles`);
    const servedAfter = Date.now() - signalled;
    const { exit, ms } = await exitedAfter;

    // Assert
    expect(ready?.json()).toMatchObject({ status: 'stopping' });
    expect(readyAfter).toBeLessThan(DELAY_MS);
    expect(servedAfter).toBeLessThan(DELAY_MS);
    expect(served.status).toBe(200);
    expect(JSON.parse(served.text)).toEqual({ from: 'upstream' });
    expect(served.headers.get('connection')).toBe('close');
    expect(exit).toEqual({ code: 0, signal: null });
    expect(ms).toBeGreaterThanOrEqual(DELAY_MS);
    expect(ms).toBeLessThan(DELAY_MS + 5_000);
    expect(gateway.logLines().find((l) => l.msg?.toString().startsWith('draining'))).toMatchObject({ drainDelayMs: DELAY_MS });
  });

  // The process gives up (exit 1) after DRAIN_DELAY_MS + 2 x SHUTDOWN_TIMEOUT_MS + 5 s: without the
  // delay in that sum, a 6 s delay with a 0 bound would end in exit 1 at 5 s.
  test('when DRAIN_DELAY_MS is longer than the stop margin, then the process still waits it out and exits 0', async () => {
    const DELAY_MS = 6_000;
    const gateway = await startProcess({
      name: 'gateway-long-drain',
      dir: 'gateway',
      env: gatewayEnv(identity, articles, { DRAIN_DELAY_MS: String(DELAY_MS), SHUTDOWN_TIMEOUT_MS: '0' }),
      logDir: logs.dir,
    });

    const signalled = Date.now();
    gateway.signal('SIGTERM');
    const exit = await gateway.exited;

    expect(exit).toEqual({ code: 0, signal: null });
    expect(Date.now() - signalled).toBeGreaterThanOrEqual(DELAY_MS);
  });

  test('when a request outlives SHUTDOWN_TIMEOUT_MS, then it is cut off and the process still exits 0, saying so', async () => {
    const gateway = await startProcess({
      name: 'gateway-cutoff',
      dir: 'gateway',
      env: gatewayEnv(identity, articles, { SHUTDOWN_TIMEOUT_MS: '300', UPSTREAM_TIMEOUT_MS: '120000' }),
      logDir: logs.dir,
    });
    const arrived = articles.nextRequest();
    const answer = keepAliveGet(`${gateway.url}/articles`, agent).then(
      () => 'answered',
      (err: NodeJS.ErrnoException) => err.code ?? err.message,
    );
    await arrived;

    gateway.signal('SIGTERM');
    const exit = await gateway.exited;

    expect(exit).toEqual({ code: 0, signal: null });
    expect(await answer).toBe('ECONNRESET');
    expect(await waitForLogLine(gateway.logLines, (l) => l.cutOff === 1)).toMatchObject({ level: 'warn' });
  });
});
