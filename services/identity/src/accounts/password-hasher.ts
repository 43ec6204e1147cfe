import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { Piscina } from 'piscina';
import type { HashLane, PasswordHasher } from './password-hasher.port';
import { BCRYPT_MAX_BYTES, PASSWORD_MAX_LENGTH } from './password-limits';
import { identityErrors } from '../errors';

// src/accounts/ (tests) and dist/accounts/ (runtime) are both two levels below the package root.
const WORKER_FILE = path.resolve(__dirname, '..', '..', 'workers', 'password.worker.cjs');

/**
 * Argon2id's costs: memory in KiB, iterations (passes over it), parallelism (lanes). Each hash or
 * check holds `memoryKib` while it runs, so the hashing memory is at most HASH_WORKERS × that.
 */
export interface Argon2Params {
  memoryKib: number;
  iterations: number;
  parallelism: number;
}

/**
 * Every new hash is Argon2id at `argon2`; hashes of bcrypt (made before it) or of other Argon2id
 * costs are still checked, and `needsRehash` says so, for the caller to replace them.
 *
 * `nice`: the Linux nice increment of the worker threads (0 = the event loop's priority).
 * `maxQueue`: tasks that may wait for a worker. Past it a check is refused at once with a 503 and
 * `Retry-After` instead of growing a queue whose tail would only be served after its clients gave
 * up (which also keeps every other request's latency bounded).
 *
 * The waiting room is kept here, not in piscina: piscina cancels a task that is already running by
 * terminating its thread, so every client that left mid-check cost a new thread (its start, and a
 * cold JIT for its first compares). Here a task waiting for a worker is dropped when its client
 * goes; a running one (one hash: stopping it would take its thread) finishes on its thread, and its
 * result is dropped.
 *
 * `signInShare` (0–1): the part of the capacity (workers + waiting room) that only sign-ins may
 * take. Other work (sign-ups, password changes and resets) is refused once it holds the rest, so a
 * flood of it can't make sign-ins answer 503. Turns alternate between the two lanes while both
 * wait, so neither starves the other: a flood of sign-ins (even for e-mails that don't exist)
 * can't make a password change wait until its client gives up.
 */
export function createPasswordHasher(options: {
  argon2: Argon2Params;
  workers: number;
  nice?: number;
  maxQueue?: number;
  signInShare?: number;
}): PasswordHasher {
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
  let threadsStarted = 0;
  pool.on('workerCreate', () => {
    threadsStarted += 1;
  });
  const turns = new Turns(options.workers);
  const capacity = options.workers + (options.maxQueue ?? Infinity);
  const othersCapacity = Number.isFinite(capacity) ? Math.max(1, capacity - Math.ceil(capacity * (options.signInShare ?? 0))) : Infinity;
  let inFlight = 0;
  let othersInFlight = 0;
  // What a hash at the current costs starts with (PHC format, as @node-rs/argon2 writes it).
  const { memoryKib, iterations, parallelism } = options.argon2;
  const currentPrefix = `$argon2id$v=19$m=${memoryKib},t=${iterations},p=${parallelism}$`;

  const run = async <T>(task: object, name: 'hash' | 'compare', signal?: AbortSignal, lane: HashLane = 'other'): Promise<T> => {
    if (signal?.aborted) throw identityErrors.clientGone();
    if (inFlight >= capacity || (lane === 'other' && othersInFlight >= othersCapacity)) throw identityErrors.hashQueueFull();
    inFlight += 1;
    if (lane === 'other') othersInFlight += 1;
    try {
      await turns.take(signal, lane);
      let result: T;
      try {
        result = (await pool.run(task, { name })) as T;
      } finally {
        turns.give();
      }
      // Nothing is done for a client that left while its check ran (no session, no failure).
      if (signal?.aborted) throw identityErrors.clientGone();
      return result;
    } finally {
      inFlight -= 1;
      if (lane === 'other') othersInFlight -= 1;
    }
  };

  // Made once, up front, so the first unknown-e-mail sign-in is not slower than the others (in
  // their lane: it is theirs, and must not hold the share of the rest at start).
  // It is Argon2id at the current costs, so an unknown e-mail costs what a current user's wrong password does.
  const dummyHash: Promise<string> = run(
    { password: randomBytes(16).toString('hex'), argon2: options.argon2 },
    'hash',
    undefined,
    'sign-in',
  );
  dummyHash.catch(() => undefined);

  return {
    hash(password, signal, lane) {
      assertHashable(password);
      return run<string>({ password, argon2: options.argon2 }, 'hash', signal, lane);
    },
    async compare(password, hash, signal, lane) {
      const matches = await run<boolean>({ password, hash: hash ?? (await dummyHash) }, 'compare', signal, lane);
      return hash !== null && couldBe(password, hash) && matches;
    },
    needsRehash: (hash) => !hash.startsWith(currentPrefix),
    stats: () => ({ inFlight, queued: turns.waiting, completed: pool.completed, threadsStarted }),
    close: () => pool.close(),
  };
}

/**
 * `size` turns, handed out first come, first served within a lane, and in alternation between
 * the lanes while both have someone waiting (weighted 1:1: a reserved half, not a priority); a
 * wait ends early, refused, when its signal aborts.
 */
class Turns {
  private taken = 0;
  private lastLane: HashLane = 'other';
  private readonly queues: Record<HashLane, Array<() => void>> = { 'sign-in': [], other: [] };

  constructor(private readonly size: number) {}

  get waiting(): number {
    return this.queues['sign-in'].length + this.queues.other.length;
  }

  take(signal?: AbortSignal, lane: HashLane = 'other'): Promise<void> {
    if (this.taken < this.size && this.waiting === 0) {
      this.taken += 1;
      return Promise.resolve();
    }
    const queue = this.queues[lane];
    return new Promise((resolve, reject) => {
      const granted = (): void => {
        signal?.removeEventListener('abort', gone);
        resolve();
      };
      const gone = (): void => {
        const at = queue.indexOf(granted);
        if (at !== -1) queue.splice(at, 1);
        reject(identityErrors.clientGone());
      };
      queue.push(granted);
      signal?.addEventListener('abort', gone, { once: true });
    });
  }

  /** Ends a turn: the next in line (if any) has it, from the lane that did not have the last one when both wait. */
  give(): void {
    const first: HashLane = this.lastLane === 'sign-in' ? 'other' : 'sign-in';
    const lane: HashLane = this.queues[first].length > 0 ? first : first === 'sign-in' ? 'other' : 'sign-in';
    const next = this.queues[lane].shift();
    if (!next) {
      this.taken -= 1;
      return;
    }
    this.lastLane = lane;
    next();
  }
}

function assertHashable(password: string): void {
  // The edge validates this; the bound on the work a request buys is checked again here.
  if (codePoints(password) > PASSWORD_MAX_LENGTH) throw new Error(`password longer than ${PASSWORD_MAX_LENGTH} characters`);
}

/**
 * Whether `password` could be the one `hash` was made from, by its length alone. A bcrypt hash was
 * made from at most 72 bytes, and bcrypt reads no further: a longer password whose first 72 bytes
 * match is still not that one. (The check runs anyway, so the answer takes the same time.)
 */
function couldBe(password: string, hash: string): boolean {
  return !hash.startsWith('$2') || Buffer.byteLength(password, 'utf8') <= BCRYPT_MAX_BYTES;
}

function codePoints(value: string): number {
  let count = 0;
  for (const _ of value) count += 1;
  return count;
}
