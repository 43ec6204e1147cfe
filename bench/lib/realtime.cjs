'use strict';
// Part 7 of `npm run bench`: realtime through one gateway replica.
//  a) 10,000 idle event streams (anonymous, topic `articles`): the gateway's RSS with them open,
//     and its CPU over 20 s of nothing but the streams (their 25 s heartbeats included).
//  b) fan-out: 1,000 streams, articles created through the gateway at a fixed rate for
//     --seconds; write-to-delivery latency (the write's send time travels in its title) p50/p99,
//     deliveries lost; then the rate doubled until p99 passes 1 s (where the curve bends).
//  c) the floor: the same frames from a bare Node SSE server (no broker, no Redis, no rules) to
//     the same 1,000 clients at the same rate, in the same run: what the machine and the load
//     generator alone allow.
// The load generator is this process (plain node:http, one socket per stream), on 127.0.0.1 only.

const fs = require('node:fs');
const http = require('node:http');
const { cpuMicros } = require('./floors.cjs');

const { paced, percentile, sleep } = require('./pacing.cjs');

function rssMiB(pid) {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)[1]) / 1024;
}


/**
 * Opens one event stream; `onFrame(event, data)` per frame. Resolves with a closer once the
 * first frame (`connected`) came, rejects on an error answer.
 */
function openStream(base, path, onFrame) {
  return new Promise((resolve, reject) => {
    const req = http.get(`${base}${path}`, { agent: false, headers: { accept: 'text/event-stream' } }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        reject(new Error(`GET ${path} answered ${res.statusCode}`));
        return;
      }
      res.setEncoding('utf8');
      let buffer = '';
      let opened = false;
      res.on('data', (chunk) => {
        buffer += chunk;
        let end;
        while ((end = buffer.indexOf('\n\n')) !== -1) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          let event = 'message';
          let data = '';
          for (const line of block.split('\n')) {
            if (line.startsWith('event: ')) event = line.slice(7);
            else if (line.startsWith('data: ')) data += line.slice(6);
          }
          if (!opened && event === 'connected') {
            opened = true;
            resolve(() => req.destroy());
          }
          if (data) onFrame(event, data);
        }
      });
      res.on('error', () => undefined);
    });
    req.on('error', reject);
  });
}

async function openMany(base, path, count, onFrame, batch = 250) {
  const closers = [];
  for (let i = 0; i < count; i += batch) {
    const opened = await Promise.all(Array.from({ length: Math.min(batch, count - i) }, () => openStream(base, path, onFrame)));
    closers.push(...opened);
  }
  return () => closers.forEach((close) => close());
}


/** One fan-out run: `streams` clients, `rate` writes/s for `seconds`; latencies of every delivery. */
async function fanOut({ base, streamPath, streams, rate, seconds, write }) {
  const latencies = [];
  const onFrame = (event, data) => {
    if (!event.endsWith('.created')) return;
    const match = /"title":"rt (\d+)/.exec(data);
    if (match) latencies.push(Date.now() - Number(match[1]));
  };
  const close = await openMany(base, streamPath, streams, onFrame);
  try {
    await sleep(500);
    const sent = await paced(rate, seconds, write);
    // Everything sent is either delivered within 5 s or lost.
    const until = Date.now() + 5_000;
    while (latencies.length < sent * streams && Date.now() < until) await sleep(50);
    latencies.sort((a, b) => a - b);
    return { sent, expected: sent * streams, delivered: latencies.length, p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
  } finally {
    close();
  }
}

/** The floor: a bare SSE server that writes each "write" to every client itself. */
async function bareServer() {
  const clients = new Set();
  let n = 0;
  const server = http.createServer((req, res) => {
    if (req.method === 'POST') {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        const frame = `id: articles:${Date.now()}-${n++}\nevent: articles.created\ndata: ${JSON.stringify({ id: String(n), record: JSON.parse(body), changed: [], at: new Date().toISOString(), requestId: 'r' })}\n\n`;
        for (const client of clients) client.write(frame);
        res.writeHead(201).end();
      });
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('event: connected\ndata: {}\n\n');
    clients.add(res);
    res.on('close', () => clients.delete(res));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(resolve);
      }),
  };
}

function post(base, path, body, headers = {}) {
  return new Promise((resolve, reject) => {
    const payload = JSON.stringify(body);
    const req = http.request(
      `${base}${path}`,
      { method: 'POST', agent: postAgent, headers: { 'content-type': 'application/json', ...headers } },
      (res) => {
        res.resume();
        res.on('end', () => (res.statusCode < 300 ? resolve() : reject(new Error(`${path}: ${res.statusCode}`))));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}
const postAgent = new http.Agent({ keepAlive: true, maxSockets: 32 });

/**
 * @param {{ gateway: string, pid: number, token: string, seconds: number, idle: number, fan: number, rate: number,
 *   log: (m: string) => void, row: (section: string, what: string, value: string, note?: string) => void }} o
 */
async function realtimeBench(o) {
  const f1 = (n) => (Number.isFinite(n) ? n.toFixed(1) : 'n/a');
  // (a) idle streams
  const rssBefore = rssMiB(o.pid);
  o.log(`realtime: opening ${o.idle} idle streams`);
  const closeIdle = await openMany(o.gateway, '/realtime?topics=articles', o.idle, () => undefined, 500);
  await sleep(3_000);
  const rssOpen = rssMiB(o.pid);
  const cpu0 = cpuMicros(o.pid);
  const t0 = Date.now();
  await sleep(20_000);
  const idleCpu = ((cpuMicros(o.pid) - cpu0) / 1000 / (Date.now() - t0)) * 100;
  closeIdle();
  o.row('7 realtime', `gateway RSS with ${o.idle} idle streams, MiB`, `**${f1(rssOpen)}**`, `${f1(rssBefore)} before them (target ≤ 600)`);
  o.row('7 realtime', `gateway CPU with ${o.idle} idle streams, % of a core over 20 s`, `**${f1(idleCpu)}**`, 'target ≤ 5');
  await sleep(3_000);

  // (b) fan-out through the stack, and (c) the bare floor, alternating.
  const write = (sentAt) => post(o.gateway, '/articles', { title: `rt ${sentAt}`, content: 'x' }, { authorization: `Bearer ${o.token}` });
  const floor = await bareServer();
  try {
    const bare = await fanOut({
      base: floor.url,
      streamPath: '/',
      streams: o.fan,
      rate: o.rate,
      seconds: o.seconds,
      write: (at) => post(floor.url, '/', { title: `rt ${at}` }),
    });
    const real = await fanOut({
      base: o.gateway,
      streamPath: '/realtime?topics=articles',
      streams: o.fan,
      rate: o.rate,
      seconds: o.seconds,
      write,
    });
    o.row(
      '7 realtime',
      `${o.rate} writes/s to ${o.fan} streams: delivery p50 / p99 ms, lost`,
      `**${f1(real.p50)} / ${f1(real.p99)}**, ${real.expected - real.delivered} of ${real.expected}`,
      `floor (bare SSE server, same clients): ${f1(bare.p50)} / ${f1(bare.p99)}, ${bare.expected - bare.delivered} lost; target ≤ 25 / 250, 0`,
    );
    let bend;
    let floorBend;
    const floorWrite = (at) => post(floor.url, '/', { title: `rt ${at}` });
    for (let rate = o.rate * 2; rate <= 640 && !bend; rate *= 2) {
      const run = await fanOut({
        base: o.gateway,
        streamPath: '/realtime?topics=articles',
        streams: o.fan,
        rate,
        seconds: o.seconds,
        write,
      });
      const base = await fanOut({ base: floor.url, streamPath: '/', streams: o.fan, rate, seconds: o.seconds, write: floorWrite });
      o.log(`realtime: ${rate} writes/s → p50 ${f1(run.p50)} p99 ${f1(run.p99)} ms (floor ${f1(base.p50)} / ${f1(base.p99)})`);
      o.row(
        '7 realtime',
        `${rate} writes/s to ${o.fan} streams: p50 / p99 ms, lost`,
        `${f1(run.p50)} / ${f1(run.p99)}, ${run.expected - run.delivered} of ${run.expected}`,
        `floor ${f1(base.p50)} / ${f1(base.p99)}, ${base.expected - base.delivered} lost`,
      );
      if (!(run.p99 <= 1000) || run.delivered < run.expected) bend = rate;
      if (!floorBend && (!(base.p99 <= 1000) || base.delivered < base.expected)) floorBend = rate;
    }
    o.row(
      '7 realtime',
      'writes/s at which p99 passes 1 s (or deliveries are lost)',
      bend ? `**${bend}**` : '> 640',
      `floor: ${floorBend ?? 'not reached'}`,
    );
  } finally {
    await floor.close();
    postAgent.destroy();
  }
}

module.exports = { realtimeBench };
