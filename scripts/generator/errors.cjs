// @ts-check
'use strict';
// The one error the generator reports to its user: a clear message, exit code 1, nothing written.

class GeneratorError extends Error {
  constructor(message) {
    super(message);
    this.name = 'GeneratorError';
  }
}

module.exports = { GeneratorError };
