'use strict';
// Runs the container test files in the order of their names (01-…, 02-…): later files stop and
// restart the stack the earlier ones need running.
const Sequencer = require('@jest/test-sequencer').default;

class ByName extends Sequencer {
  sort(tests) {
    return [...tests].sort((a, b) => a.path.localeCompare(b.path));
  }
}

module.exports = ByName;
