'use strict';
// Runs in a piscina worker thread: bcrypt is CPU-bound for tens of milliseconds per call, and
// bcryptjs's "async" API only slices that work across the same event loop. Plain CommonJS so that
// both the built service and ts-jest can load it.
const bcrypt = require('bcryptjs');

module.exports = {
  hash({ password, rounds }) {
    return bcrypt.hashSync(password, rounds);
  },
  compare({ password, hash }) {
    return bcrypt.compareSync(password, hash);
  },
};
