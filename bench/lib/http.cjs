'use strict';
// What the flood benchmarks share: their numeric options and one HTTP request to 127.0.0.1 with a
// deadline. Node built-ins only.

const http = require('node:http');

const HOST = '127.0.0.1';

/** `--<name> N` from the command line, within (0, max]; `fallback` when absent. */
function option(name, fallback, max) {
  const i = process.argv.indexOf(`--${name}`);
  const value = i === -1 ? fallback : Number(process.argv[i + 1]);
  if (!Number.isFinite(value) || value <= 0 || value > max) throw new Error(`--${name} must be a number in (0, ${max}]`);
  return value;
}

/** One request to 127.0.0.1:`port`, cut after `timeoutMs`; resolves with status, headers and body text. */
function request(port, agent, { method, path: urlPath, headers = {}, body }, timeoutMs) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: HOST, port, method, path: urlPath, agent, headers }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`${method} ${urlPath} timed out`)));
    req.on('error', reject);
    req.end(body);
  });
}

module.exports = { HOST, option, request };
