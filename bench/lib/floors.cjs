'use strict';
// What the benchmarks compare the gateway with: bench/bare-proxy.cjs's proxies with nothing else
// on them, and the CPU a process has used. Node built-ins only.

const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { freePort } = require('../../scripts/lib/backing.cjs');

const HOST = '127.0.0.1';
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The floors, cheapest first: bare-proxy.cjs's kind and how a table names it. */
const FLOORS = [
  ['undici', 'node:http server + undici pool'],
  ['fastify', "fastify + undici pool alone (the gateway's stack)"],
  ['work', "fastify + undici + the gateway's unavoidable work, written plainly"],
  ['node', 'bare node:http proxy'],
  ['hpm', 'node:http + http-proxy-middleware alone (the old lane)'],
  ['express', 'Express + http-proxy-middleware alone'],
];

/**
 * CPU time (user + system) a process has used, in microseconds, from /proc; null where there is
 * none. Per request, it is the measure a busy shared machine disturbs least: throughput and
 * latency also depend on who else wants the cores.
 */
function cpuMicros(pid) {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    // utime and stime are fields 14 and 15 of stat, in clock ticks (100 per second on Linux).
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / 100;
  } catch {
    return null;
  }
}

/** Resolves once something answers HTTP at `url` (any status), within ~10 s. */
async function waitForAnswer(url) {
  for (let tries = 0; tries < 100; tries += 1) {
    const answered = await fetch(url).then(
      async (res) => {
        await res.body?.cancel();
        return true;
      },
      () => false,
    );
    if (answered) return;
    await sleep(100);
  }
  throw new Error(`nothing answers at ${url}`);
}

/** Starts the floor of `kind` in front of `target` on a free port, once it answers. */
async function startFloor(kind, target) {
  const port = await freePort();
  // Its stdout goes to a file, as the gateway's access lines do in the bench's stack.
  const logFile = path.join(os.tmpdir(), `restgate-floor-${kind}-${port}.log`);
  const logFd = fs.openSync(logFile, 'w');
  const child = spawn(process.execPath, [path.join(__dirname, '..', 'bare-proxy.cjs'), String(port), target, kind], {
    stdio: ['ignore', logFd, logFd],
  });
  fs.closeSync(logFd);
  const url = `http://${HOST}:${port}`;
  await waitForAnswer(`${url}/health`);
  return {
    pid: child.pid,
    url,
    stop: () => {
      child.kill();
      fs.rmSync(logFile, { force: true });
    },
  };
}

module.exports = { FLOORS, cpuMicros, startFloor, waitForAnswer };
