import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { Piscina } from 'piscina';
import type { PasswordHasher } from '../domain/password-hasher';
import { BCRYPT_MAX_BYTES } from '../domain/password-limits';
import { identityErrors } from '../errors';

// src/crypto/ (tests) and dist/crypto/ (runtime) are both two levels below the package root.
const WORKER_FILE = path.resolve(__dirname, '..', '..', 'workers', 'password.worker.cjs');

/**
 * `nice`: the Linux nice increment of the worker threads (0 = the event loop's priority).
 * `maxQueue`: tasks that may wait for a worker. Past it a check is refused at once with a 503 and
 * `Retry-After` instead of growing a queue whose tail would only be served after its clients gave
 * up (which also keeps every other request's latency bounded).
 */
export function createPasswordHasher(options: { rounds: number; workers: number; nice?: number; maxQueue?: number }): PasswordHasher {
  const pool = new Piscina({
    filename: WORKER_FILE,
    minThreads: options.workers,
    maxThreads: options.workers,
    // One worker per core can hash at full speed and still never delay a request: at a lower
    // priority (Linux nice, per thread) a hashing thread gets a core only when no event loop
    // wants it. Without it, cores − 1 workers was the only safe size, a third of the machine idle
    // under a sign-in flood on two cores.
    niceIncrement: options.nice ?? 0,
  });
  // Counted here, not with piscina's maxQueue: piscina keeps tasks that carry an AbortSignal in a
  // queue of their own, which its maxQueue does not bound.
  const capacity = options.workers + (options.maxQueue ?? Infinity);
  let inFlight = 0;
  // Made once, up front, so the first unknown-e-mail sign-in is not slower than the others.
  const dummyHash: Promise<string> = pool.run({ password: randomBytes(16).toString('hex'), rounds: options.rounds }, { name: 'hash' });
  dummyHash.catch(() => undefined);

  const run = async <T>(task: object, name: 'hash' | 'compare', signal?: AbortSignal): Promise<T> => {
    if (signal?.aborted) throw identityErrors.clientGone();
    if (inFlight >= capacity) throw identityErrors.hashQueueFull();
    inFlight += 1;
    try {
      return (await pool.run(task, { name, signal })) as T;
    } catch (err) {
      if ((err as Error).name === 'AbortError' && signal?.aborted) throw identityErrors.clientGone();
      throw err;
    } finally {
      inFlight -= 1;
    }
  };

  return {
    hash(password, signal) {
      assertHashable(password);
      return run<string>({ password, rounds: options.rounds }, 'hash', signal);
    },
    async compare(password, hash, signal) {
      // An over-long password can't be a stored one, but its first 72 bytes could match one.
      const comparable = Buffer.byteLength(password, 'utf8') <= BCRYPT_MAX_BYTES;
      const matches = await run<boolean>({ password, hash: hash ?? (await dummyHash) }, 'compare', signal);
      return comparable && hash !== null && matches;
    },
    stats: () => ({ inFlight, queued: Math.max(0, inFlight - options.workers), completed: pool.completed }),
    close: () => pool.close(),
  };
}

function assertHashable(password: string): void {
  // The edge validates this; hashing a truncated password would be a silent bug, so check again.
  if (Buffer.byteLength(password, 'utf8') > BCRYPT_MAX_BYTES) throw new Error('password longer than bcrypt can hash');
}
