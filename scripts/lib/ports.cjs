// @ts-check
'use strict';
// Ports on loopback: free ones to hand out, and whether something answers on one. Node built-ins
// only: this runs before `npm install`.

const net = require('node:net');

const LOOPBACK = '127.0.0.1';
const AMQP_HEADER = Buffer.from('AMQP\x00\x00\x09\x01', 'latin1');

/** @param {number} ms */
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// Ports handed out below the kernel's ephemeral range (32768–60999 on Linux): a port the kernel
// picked for `listen(0)` can be taken by an outgoing connection before our process binds it,
// which made test stacks fail now and then with "port already in use".
const PORT_RANGE = { from: 20000, to: 32000 };
/** @type {Set<number>} */
const handedOut = new Set();

/** A port on loopback that nothing listens on now, not handed out before by this process. */
async function freePort() {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = PORT_RANGE.from + Math.floor(Math.random() * (PORT_RANGE.to - PORT_RANGE.from));
    if (handedOut.has(port) || !(await canListen(port))) continue;
    handedOut.add(port);
    return port;
  }
  throw new Error(`no free port between ${PORT_RANGE.from} and ${PORT_RANGE.to} on ${LOOPBACK}`);
}

// Bind-test rather than connect-test: something bound to 0.0.0.0 but not answering still blocks us.
/** @param {number} port @param {string} [host] @returns {Promise<boolean>} */
async function canListen(port, host = LOOPBACK) {
  const server = net.createServer();
  /** @type {boolean} */
  const ok = await new Promise((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, host, () => resolve(true));
  });
  if (ok) await new Promise((resolve) => server.close(resolve));
  return ok;
}

/**
 * Connects to host:port and lets `talk` decide the answer; false on a timeout or an error.
 * @param {string} host @param {number} port @param {number} timeoutMs
 * @param {(socket: net.Socket, done: (ok: boolean) => void) => void} talk
 * @returns {Promise<boolean>}
 */
function probe(host, port, timeoutMs, talk) {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    /** @param {boolean} ok */
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('error', () => done(false));
    talk(socket, done);
  });
}

/** Whether anything accepts a connection there. @param {string} host @param {number} port @param {number} [timeoutMs] */
function tcpConnects(host, port, timeoutMs = 1000) {
  return probe(host, port, timeoutMs, (socket, done) => socket.once('connect', () => done(true)));
}

/**
 * Whether an AMQP broker answers there. A real broker answers the protocol header with
 * connection.start (frame type 1), or with its own header when it speaks another version;
 * anything else on the port is not AMQP.
 * @param {string} host @param {number} port @param {number} [timeoutMs]
 */
function amqpAnswers(host, port, timeoutMs = 2000) {
  return probe(host, port, timeoutMs, (socket, done) => {
    socket.once('connect', () => socket.write(AMQP_HEADER));
    socket.once('data', (data) => done(data[0] === 1 || data.subarray(0, 4).toString('latin1') === 'AMQP'));
    socket.once('end', () => done(false));
  });
}

/**
 * @typedef {object} Watched  a child whose death ends a wait early (see processes.cjs)
 * @property {string} name
 * @property {string | null} exitInfo
 * @property {() => string} tail
 */

/**
 * Polls check() until it returns true. Fails early, with the log tail, when `child` dies meanwhile.
 * @param {() => Promise<boolean>} check
 * @param {{ timeoutMs: number, what: string, child?: Watched, intervalMs?: number }} options
 */
async function waitFor(check, { timeoutMs, what, child, intervalMs = 200 }) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child && child.exitInfo) {
      throw new Error(`${what}: ${child.name} exited (${child.exitInfo}) before it was ready\n${child.tail()}`);
    }
    if (await check()) return;
    await sleep(intervalMs);
  }
  const tail = child ? `\n${child.tail()}` : '';
  throw new Error(`${what}: not ready after ${Math.round(timeoutMs / 1000)} s${tail}`);
}

/** @param {string} host @param {number} port @param {number} timeoutMs @param {{ child?: Watched }} [options] */
function waitForPort(host, port, timeoutMs, { child } = {}) {
  return waitFor(() => tcpConnects(host, port, 500), { timeoutMs, what: `waiting for ${host}:${port}`, child });
}

module.exports = { LOOPBACK, sleep, freePort, canListen, tcpConnects, amqpAnswers, waitFor, waitForPort };
