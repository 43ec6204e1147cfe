'use strict';
// Runs in a piscina worker thread, so that a hash is bounded work at this thread's nice, inside
// the pool's queue. The synchronous calls on purpose: @node-rs/argon2's async ones run on libuv's
// pool, which has no priority of its own and no bound of ours. Plain CommonJS so that both the
// built service and ts-jest can load it.
//
// Every new hash is Argon2id (native, @node-rs/argon2: prebuilt per platform, no install script).
// bcrypt hashes from before it are still verified (bcryptjs); a sign-in replaces them.
const argon2 = require('@node-rs/argon2');
const bcrypt = require('bcryptjs');

// `Algorithm.Argon2id` in its types: a const enum, absent at run time.
const ARGON2ID = 2;

module.exports = {
  hash({ password, argon2: params }) {
    return argon2.hashSync(password, {
      algorithm: ARGON2ID,
      memoryCost: params.memoryKib,
      timeCost: params.iterations,
      parallelism: params.parallelism,
    });
  },
  compare({ password, hash }) {
    if (hash.startsWith('$argon2')) return argon2.verifySync(hash, password);
    if (hash.startsWith('$2')) return bcrypt.compareSync(password, hash);
    // A stored hash of no format we know is a defect to see (a 500, logged), not a wrong password.
    throw new Error('unknown password hash format');
  },
};
