'use strict';
// The floors of a Node proxy, for the bench to compare the gateway with, over a keep-alive agent
// and with nothing else (no logs, limits, credentials or headers):
// - `node`: node:http piped both ways;
// - `hpm`: a node:http server with http-proxy-middleware, as the gateway's lane proxies;
// - `express`: Express with http-proxy-middleware, as the gateway proxied before its lane.
//
//   node bench/bare-proxy.cjs <port> <target base URL> [node|hpm|express]

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

const kinds = { node: () => nodeProxy, hpm: hpmProxy, express: expressProxy };
if (!kinds[kind]) throw new Error(`unknown proxy kind: ${kind}`);
http.createServer(kinds[kind]()).listen(port, '127.0.0.1');
