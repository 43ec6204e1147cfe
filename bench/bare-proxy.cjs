'use strict';
// The floors of a Node proxy, for the bench to compare the gateway with, over a keep-alive agent
// and with nothing else (no logs, limits, credentials or headers):
// - `node`: node:http piped both ways;
// - `express`: Express with http-proxy-middleware, the two libraries the gateway is built on.
//
//   node bench/bare-proxy.cjs <port> <target base URL> [node|express]

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

function expressProxy() {
  // Resolved from the gateway, whose dependencies these are.
  const from = { paths: [require('node:path').join(__dirname, '..', 'gateway')] };
  const express = require(require.resolve('express', from));
  const { createProxyMiddleware } = require(require.resolve('http-proxy-middleware', from));
  const app = express();
  app.use(createProxyMiddleware({ target: target.href, agent, changeOrigin: false, toProxy: true }));
  return app;
}

if (kind !== 'node' && kind !== 'express') throw new Error(`unknown proxy kind: ${kind}`);
http.createServer(kind === 'node' ? nodeProxy : expressProxy()).listen(port, '127.0.0.1');
