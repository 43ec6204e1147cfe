'use strict';
// bench/run.cjs's /health probe, on a thread of its own: GET workerData.path on 127.0.0.1 at
// workerData.port every workerData.everyMs until the parent posts a message, then post back the
// latencies in ms. A probe that gets no 200 ends the thread with an error.

const http = require('node:http');
const { parentPort, workerData } = require('node:worker_threads');
const { request } = require('./http.cjs');

const TIMEOUT_MS = 10_000;

async function main() {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  let running = true;
  parentPort.once('message', () => {
    running = false;
  });
  const samples = [];
  try {
    while (running) {
      const t = process.hrtime.bigint();
      const res = await request(workerData.port, agent, { method: 'GET', path: workerData.path }, TIMEOUT_MS);
      if (res.status !== 200) throw new Error(`${workerData.path} answered ${res.status}`);
      samples.push(Number(process.hrtime.bigint() - t) / 1e6);
      await new Promise((resolve) => setTimeout(resolve, workerData.everyMs));
    }
  } finally {
    agent.destroy();
  }
  parentPort.postMessage(samples);
}

main().catch((err) =>
  process.nextTick(() => {
    throw err;
  }),
);
