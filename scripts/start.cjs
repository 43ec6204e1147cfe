#!/usr/bin/env node
'use strict';
// `npm start`: install and build when needed, create .env on first run, provide MongoDB and
// RabbitMQ, start the services and the gateway, and stay in the foreground until Ctrl-C.
// Node built-ins only: this is what runs on a fresh clone, before any `npm install`.

const http = require('node:http');
const path = require('node:path');
const { ensureInstalled, StepError } = require('./lib/install.cjs');
const { ensureEnvFile } = require('./lib/env-file.cjs');

const ROOT_DIR = path.resolve(__dirname, '..');
const DATA_DIR = path.join(ROOT_DIR, '.data');
const LOG_DIR = path.join(DATA_DIR, 'logs');
// A second signal this long after the first forces the exit; closer ones are the same Ctrl-C
// delivered twice (by the terminal to our process group, and forwarded by npm).
const FORCE_AFTER_MS = 1500;

const log = (msg) => process.stderr.write(`[restgate] ${msg}\n`);
const relative = (p) => path.relative(process.cwd(), p) || '.';

async function main() {
  const startedAt = Date.now();
  const aborter = new AbortController();
  let signalled = null;
  let signalledAt = 0;
  let onStopSignal;
  const stopRequested = new Promise((resolve) => {
    onStopSignal = resolve;
  });
  const onSignal = (sig) => {
    if (!signalled) {
      signalled = sig;
      signalledAt = Date.now();
      log(`${sig} received; stopping`);
      aborter.abort();
      onStopSignal(sig);
    } else if (Date.now() - signalledAt > FORCE_AFTER_MS) {
      // The 'exit' hooks of stack.cjs and backing.cjs still send SIGTERM to what they started.
      log(`${sig} received again; exiting without waiting`);
      process.exit(130);
    }
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // Keeps us alive while only child processes and pipes are left to wait on.
  const keepAlive = setInterval(() => {}, 1 << 30);

  const cleanups = [];
  let exitCode = 0;
  let envFile = null;
  try {
    await ensureInstalled({ rootDir: ROOT_DIR, log });
    if (signalled) return 0;

    // Required only now: the backing and stack modules are plain Node too, but the install must
    // come first so that a broken checkout fails there with npm's own message.
    const { ensureMongo, ensureRabbit, ensureRedis, makePrivate, provisionBacking } = require('./lib/backing.cjs');
    const { formatLogLine, levelOf, parseLine } = require('./lib/log-lines.cjs');
    const { startStack, portsFromEnv } = require('./lib/stack.cjs');

    envFile = ensureEnvFile(ROOT_DIR);
    if (envFile.created) log(`created ${relative(envFile.file)} with new random secrets`);
    if (envFile.added.length) log(`added missing ${envFile.added.join(', ')} to ${relative(envFile.file)}`);
    // A variable set in the environment wins over .env. The backing servers honour MONGODB_URL,
    // AMQP_URL and REDIS_URL from either.
    /** @type {Record<string, string | undefined>} */
    const env = { ...envFile.env, ...process.env };
    // Local development: webhook receivers on this machine (or its network) may be registered.
    env.WEBHOOK_ALLOW_PRIVATE_NETWORKS ??= 'true';

    makePrivate(DATA_DIR);
    // Whatever the three servers need from Debian, in one install, before they start side by side.
    await provisionBacking({ env, log });
    if (signalled) return 0;
    const backing = await Promise.allSettled([
      ensureMongo({ dataDir: DATA_DIR, log, env }),
      ensureRabbit({ dataDir: DATA_DIR, log, env }),
      ensureRedis({ dataDir: DATA_DIR, log, env }),
    ]);
    for (const result of backing) if (result.status === 'fulfilled') cleanups.push(() => result.value.stop());
    const failure = backing.find((r) => r.status === 'rejected');
    if (failure) throw failure.reason;
    if (signalled) return 0;
    // All three fulfilled: a failure was thrown above.
    const [mongo, rabbit, redis] = backing.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    env.MONGODB_URL = mongo.url;
    env.AMQP_URL = rabbit.url;
    env.REDIS_URL = redis.url;

    // Warnings and errors of the services also go to stderr, compactly; the rest only to the logs.
    const mirror = (name, line) => {
      const record = parseLine(line);
      if (record ? levelOf(record) >= 40 : line.trim()) process.stderr.write(`[${name}] ${formatLogLine(line)}\n`);
    };
    const stack = await startStack({
      env,
      ports: portsFromEnv(env),
      logDir: LOG_DIR,
      log,
      onLogLine: mirror,
      signal: aborter.signal,
    });
    cleanups.push(() => stack.stop());

    const seconds = ((Date.now() - startedAt) / 1000).toFixed(1);
    process.stdout.write(`\nrestgate gateway listening on ${stack.gatewayUrl}\n`);
    process.stdout.write(
      `  logs: ${relative(LOG_DIR)}/{${stack.processes.map((p) => p.name).join(',')}}.log · ready in ${seconds} s · Ctrl-C stops everything\n`,
    );
    if (await answers200(`${stack.gatewayUrl}/docs`)) process.stdout.write(`  API docs: ${stack.gatewayUrl}/docs\n`);
    if (envFile.created) {
      // The only time any secret is printed: the user needs the master key to call the API.
      process.stdout.write(
        `\n  Master key (shown once; it stays in .env as MASTER_KEY): ${envFile.env.MASTER_KEY}\n` +
          `  Send it as access_token to sign up and sign in, e.g.\n` +
          `    curl ${stack.gatewayUrl}/users -d email=ada@example.com -d password=correct-horse -d access_token=${envFile.env.MASTER_KEY}\n`,
      );
    }
    process.stdout.write('\n');

    const outcome = await Promise.race([stopRequested.then(() => null), stack.exited]);
    if (outcome) {
      log(
        `${outcome.name} exited unexpectedly (${outcome.signal ? `signal ${outcome.signal}` : `exit code ${outcome.code}`}); stopping the rest. Log: ${relative(outcome.logFile)}`,
      );
      process.stderr.write(`--- last lines of ${outcome.name} ---\n${outcome.tail}\n`);
      exitCode = 1;
    }
  } catch (err) {
    if (err.name === 'AbortError' && signalled) return 0;
    if (err instanceof StepError) {
      log(err.message);
      exitCode = err.exitCode;
    } else {
      log(`error: ${err.message}`);
      exitCode = 1;
    }
    if (envFile?.created) log(`the new master key is in ${relative(envFile.file)} (MASTER_KEY)`);
  } finally {
    // Services first, then the backing servers they were using.
    for (const cleanup of cleanups.reverse()) {
      try {
        await cleanup();
      } catch (err) {
        log(`while stopping: ${err.message}`);
        exitCode ||= 1;
      }
    }
    clearInterval(keepAlive);
    if (cleanups.length) log('stopped');
  }
  return exitCode;
}

function answers200(url) {
  return new Promise((resolve) => {
    const req = http.get(url, { timeout: 1000, agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.once('timeout', () => req.destroy());
    req.once('error', () => resolve(false));
  });
}

main().then(
  (code) => process.exit(code),
  (err) => {
    log(`error: ${err.stack || err.message}`);
    process.exit(1);
  },
);
