'use strict';
// The floor of the gateway's own work: what any gateway keeping restgate's contract must do for
// a public `GET /articles/:id`, written the plainest and cheapest way, on the gateway's stack
// (fastify + undici's pool). It is what issue 28's targets are measured against besides the bare
// floors: a ratio to undici's floor that this floor cannot reach, the gateway cannot either.
//
// Per request, and nothing more:
// - the request id (the client's if well-formed, else a new UUID), on the answer and upstream;
// - the security headers helmet's defaults give (the same list the gateway sets);
// - the route's row looked up (fastify's router: one parametric route) and the credentials in
//   sight (an `Authorization` header, an `access_token` in the query): none on this path;
// - the ceiling on all routes: a count per client address in memory (the gateway shares its
//   counts through Redis every 200 ms: amortised to nothing per request), and the two
//   RateLimit headers on the answer;
// - the anonymous principal and the client address, each signed (HMAC-SHA256) for method + path;
// - the headers forwarded: hop-by-hop and client-set identity headers dropped, the two
//   signatures and the request id added;
// - proxied through undici's keep-alive pool, the answer's end-to-end headers copied;
// - one JSON access line (pino, to stdout) and one histogram observation (prom-client) at the end.
// Not here because this path does not need them: a token's verification (public route, no
// token), the revocation lookup, a body, CORS.

const { createHmac, randomUUID } = require('node:crypto');
const path = require('node:path');

const fromGateway = { paths: [path.join(__dirname, '..', '..', 'gateway')] };
const need = (name) => require(require.resolve(name, fromGateway));

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade']);
const IDENTITY = /^(x-restgate-|x-user|x-principal|x-auth|x-remote-user|x-forwarded-user|remote-user|x-authenticated)/;
const REQUEST_ID = /^[\w.:-]{1,128}$/;
const WINDOW_MS = 60_000;
const CEILING = 1_000_000;

function sign(secret, claims) {
  const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
  return `${payload}.${createHmac('sha256', secret).update(payload).digest('base64url')}`;
}

function workFloor(target) {
  const { Pool } = need('undici');
  const pino = need('pino');
  const promClient = need('prom-client');
  const { securityHeaderEntries } = need('@restgate/shared/http');
  const pool = new Pool(target.origin, { connections: 256 });
  const log = pino({ base: null });
  const duration = new promClient.Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from the request to the end of the answer.',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  });
  const securityHeaders = securityHeaderEntries();
  const secret = randomUUID() + randomUUID();
  const counts = new Map();
  let windowEnds = Date.now() + WINDOW_MS;

  const app = need('fastify')({ logger: false, requestIdHeader: false, genReqId: () => '' });
  app.get('/health', async () => ({ status: 'ok' }));
  app.get('/articles/:id', async (request, reply) => {
    const req = request.raw;
    const res = reply.raw;
    const started = performance.now();
    const given = req.headers['x-request-id'];
    const requestId = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    res.setHeader('x-request-id', requestId);
    for (const [name, value] of securityHeaders) res.setHeader(name, value);
    const url = req.url;
    const q = url.indexOf('?');
    const urlPath = q === -1 ? url : url.slice(0, q);
    if (req.headers.authorization !== undefined || (q !== -1 && url.includes('access_token', q))) {
      return reply.code(400).send({ detail: 'this floor serves anonymous requests only' });
    }
    const address = req.socket.remoteAddress;
    const now = Date.now();
    if (now >= windowEnds) {
      counts.clear();
      windowEnds = now + WINDOW_MS;
    }
    const count = (counts.get(address) ?? 0) + 1;
    counts.set(address, count);
    const resetSeconds = Math.ceil((windowEnds - now) / 1000);
    res.setHeader('RateLimit-Policy', `"all";q=${CEILING};w=${WINDOW_MS / 1000}`);
    res.setHeader('RateLimit', `"all";r=${CEILING - count};t=${resetSeconds}`);

    const headers = {};
    for (const name of Object.keys(req.headers)) {
      if (!HOP_BY_HOP.has(name) && !IDENTITY.test(name) && name !== 'x-forwarded-for') headers[name] = req.headers[name];
    }
    headers['x-forwarded-for'] = address;
    headers['x-restgate-principal'] = sign(secret, { p: { kind: 'anonymous' }, m: 'GET', u: urlPath, t: now });
    headers['x-restgate-client'] = sign(secret, { a: address, m: 'GET', u: urlPath, t: now });
    headers['x-request-id'] = requestId;

    res.once('finish', () => {
      const elapsed = performance.now() - started;
      log.info(
        { requestId, req: { id: requestId, method: 'GET', url }, res: { statusCode: res.statusCode }, responseTime: Math.round(elapsed) },
        'request completed',
      );
      duration.observe({ method: 'GET', route: '/articles/:id', status: String(res.statusCode) }, elapsed / 1000);
    });
    try {
      const answer = await pool.request({ method: 'GET', path: url, headers });
      const kept = {};
      for (const name of Object.keys(answer.headers)) if (!HOP_BY_HOP.has(name)) kept[name] = answer.headers[name];
      return reply.code(answer.statusCode).headers(kept).send(answer.body);
    } catch {
      return reply.code(502).send({ detail: 'the service did not answer' });
    }
  });
  const ready = app.ready();
  return (req, res) => ready.then(() => app.routing(req, res));
}

module.exports = { workFloor };
