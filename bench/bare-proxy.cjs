'use strict';
// The floors of a Node proxy, for the bench to compare the gateway with, over a keep-alive agent
// and with nothing else (no logs, limits, credentials or headers):
// - `node`: node:http piped both ways;
// - `hpm`: a node:http server with http-proxy-middleware, as the gateway's lane proxies;
// - `express`: Express with http-proxy-middleware, as the gateway proxied before its lane;
// - `undici`: a node:http server whose upstream client is undici's keep-alive pool (the client
//   Node's own fetch is built on) instead of node:http's: what the lane could run on instead of
//   http-proxy-middleware (docs/benchmarks.md).
//
//   node bench/bare-proxy.cjs <port> <target base URL> [node|hpm|express|undici]

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

// Resolved from the gateway, whose dependencies these are.
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

function endToEnd(headers) {
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

const kinds = { node: () => nodeProxy, hpm: hpmProxy, express: expressProxy, undici: undiciProxy };
if (!kinds[kind]) throw new Error(`unknown proxy kind: ${kind}`);
http.createServer(kinds[kind]()).listen(port, '127.0.0.1');
