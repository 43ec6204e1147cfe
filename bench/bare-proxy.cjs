'use strict';
// The floor of a Node proxy, for the bench to compare the gateway with: node:http piped both
// ways over a keep-alive agent, nothing else (no logs, limits, credentials or headers).
//
//   node bench/bare-proxy.cjs <port> <target base URL>

const http = require('node:http');

const port = Number(process.argv[2]);
const target = new URL(process.argv[3]);
const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

http
  .createServer((req, res) => {
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
  })
  .listen(port, '127.0.0.1');
