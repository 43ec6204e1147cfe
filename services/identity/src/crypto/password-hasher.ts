import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { Piscina } from 'piscina';
import type { PasswordHasher } from '../domain/password-hasher';
import { BCRYPT_MAX_BYTES } from '../domain/password-limits';

// src/crypto/ (tests) and dist/crypto/ (runtime) are both two levels below the package root.
const WORKER_FILE = path.resolve(__dirname, '..', '..', 'workers', 'password.worker.cjs');

export function createPasswordHasher(options: { rounds: number; workers: number }): PasswordHasher {
  const pool = new Piscina({ filename: WORKER_FILE, minThreads: options.workers, maxThreads: options.workers });
  // Made once, up front, so the first unknown-e-mail sign-in is not slower than the others.
  const dummyHash: Promise<string> = pool.run({ password: randomBytes(16).toString('hex'), rounds: options.rounds }, { name: 'hash' });
  dummyHash.catch(() => undefined);

  return {
    hash(password) {
      assertHashable(password);
      return pool.run({ password, rounds: options.rounds }, { name: 'hash' }) as Promise<string>;
    },
    async compare(password, hash) {
      // An over-long password can't be a stored one, but its first 72 bytes could match one.
      const comparable = Buffer.byteLength(password, 'utf8') <= BCRYPT_MAX_BYTES;
      const matches = (await pool.run({ password, hash: hash ?? (await dummyHash) }, { name: 'compare' })) as boolean;
      return comparable && hash !== null && matches;
    },
    close: () => pool.close(),
  };
}

function assertHashable(password: string): void {
  // The edge validates this; hashing a truncated password would be a silent bug, so check again.
  if (Buffer.byteLength(password, 'utf8') > BCRYPT_MAX_BYTES) throw new Error('password longer than bcrypt can hash');
}
