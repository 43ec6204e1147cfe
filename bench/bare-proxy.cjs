'use strict';
// The floors of a Node proxy, for the bench to compare the gateway with, over a keep-alive agent
// and with nothing else (no logs, limits, credentials or headers):
// - `node`: node:http piped both ways;
// - `undici`: a node:http server whose upstream client is undici's keep-alive pool (the client
//   Node's own fetch is built on) instead of node:http's;
// - `fastify`: fastify with one catch-all route sending through undici's pool: the gateway's own
//   stack with nothing of the gateway on it;
// - `hpm`: a node:http server with http-proxy-middleware, as the gateway's lane proxied until it
//   moved to fastify and undici;
// - `express`: Express with http-proxy-middleware, as the gateway proxied before that;
// - `work`: fastify + undici with the work the gateway's contract asks of every request, written
//   plainly (lib/work-floor.cjs): not a bare floor, the floor of the gateway's own work.
//
//   node bench/bare-proxy.cjs <port> <target base URL> [node|hpm|express|undici|fastify|work]

const http = require('node:http');

const port = Number(process.argv[2]);
const target = new URL(process.argv[3]);
const kind = process.argv[4] ?? 'node';
const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

function nodeProxy(req, res) {
  const upstream = http.request(
    { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers, agent },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    },
  );
  upstream.on('error', () => {
    res.statusCode = 502;
    res.end();
  });
  req.pipe(upstream);
}

// Resolved from the gateway, whose dependencies (or the bench's) these are.
const fromGateway = { paths: [require('node:path').join(__dirname, '..', 'gateway')] };

function hpm() {
  const { createProxyMiddleware } = require(require.resolve('http-proxy-middleware', fromGateway));
  return createProxyMiddleware({ target: target.href, agent, changeOrigin: false, toProxy: true });
}

function expressProxy() {
  const express = require(require.resolve('express', fromGateway));
  const app = express();
  app.use(hpm());
  return app;
}

function hpmProxy() {
  const proxy = hpm();
  return (req, res) => proxy(req, res, () => res.writeHead(404).end());
}

/** Hop-by-hop headers: about one connection, never forwarded (and undici refuses some of them). */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

/**
 * @param {Record<string, string | string[] | undefined>} headers
 * @returns {Record<string, string | string[]>}
 */
function endToEnd(headers) {
  /** @type {Record<string, string | string[]>} */
  const kept = {};
  for (const [name, value] of Object.entries(headers)) if (!HOP_BY_HOP.has(name)) kept[name] = value;
  return kept;
}

function undiciProxy() {
  const { Pool } = require('undici');
  const pool = new Pool(target.origin, { connections: 256 });
  return (req, res) => {
    const withBody = req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
    pool.request({ method: req.method, path: req.url, headers: endToEnd(req.headers), body: withBody ? req : null }).then(
      ({ statusCode, headers, body }) => {
        res.writeHead(statusCode, endToEnd(headers));
        body.pipe(res);
      },
      () => {
        res.statusCode = 502;
        res.end();
      },
    );
  };
}

function fastifyProxy() {
  const { Pool } = require(require.resolve('undici', fromGateway));
  const app = require(require.resolve('fastify', fromGateway))({ logger: false });
  const pool = new Pool(target.origin, { connections: 256 });
  // Bodies pass as streams, unparsed.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
  app.all('*', async (request, reply) => {
    const req = request.raw;
    const withBody = req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
    try {
      const { statusCode, headers, body } = await pool.request({
        method: req.method,
        path: req.url,
        headers: endToEnd(req.headers),
        body: withBody ? req : null,
      });
      return reply.code(statusCode).headers(endToEnd(headers)).send(body);
    } catch {
      return reply.code(502).send();
    }
  });
  const ready = app.ready();
  return (req, res) => ready.then(() => app.routing(req, res));
}

const kinds = {
  node: () => nodeProxy,
  hpm: hpmProxy,
  express: expressProxy,
  undici: undiciProxy,
  fastify: fastifyProxy,
  work: () => require('./lib/work-floor.cjs').workFloor(target),
};
if (!kinds[kind]) throw new Error(`unknown proxy kind: ${kind}`);
http.createServer(kinds[kind]()).listen(port, '127.0.0.1');
