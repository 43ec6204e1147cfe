'use strict';
// What the benchmarks share: their numeric options, one HTTP request to 127.0.0.1 with a deadline,
// and requests at a fixed rate for a latency's p50. Node built-ins only.

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
/**
 * @param {number} port
 * @param {import('node:http').Agent} agent
 * @param {{ method: string, path: string, headers?: Record<string, string>, body?: string }} options
 * @param {number} [timeoutMs]
 */
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

/**
 * The p50 in ms of `GET urlPath` at `base` (http://127.0.0.1:port), sent at a fixed `rate` per
 * second for `seconds`: one request per tick whatever the earlier ones do, over keep-alive, timed
 * with hrtime (sub-millisecond). Every answer must have the status `expect`.
 */
async function pacedP50(base, { path: urlPath, rate, seconds, expect = 200 }) {
  const port = Number(new URL(base).port);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
  const samples = [];
  const pending = [];
  const started = performance.now();
  try {
    for (let i = 0; performance.now() - started < seconds * 1000; i += 1) {
      const wait = started + (i * 1000) / rate - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      const sent = process.hrtime.bigint();
      pending.push(
        request(port, agent, { method: 'GET', path: urlPath }, 10_000).then((res) => {
          if (res.status !== expect) throw new Error(`${urlPath}: expected ${expect}, got ${res.status}`);
          samples.push(Number(process.hrtime.bigint() - sent) / 1e6);
        }),
      );
    }
    await Promise.all(pending);
  } finally {
    agent.destroy();
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)];
}

module.exports = { HOST, option, pacedP50, request };
